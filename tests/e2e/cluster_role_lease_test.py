"""Acceptance (agents in Kubernetes): two cluster-role agents of one member cluster, as separate
processes, against a FIXTURE Kubernetes API server (HTTPS, client certificate, token; no real
API server runs here). One wins the coordination.k8s.io Lease, holds the hub session and runs a
gang as a Pod (kubernetes executor); the cluster's nodes are Kubernetes' Nodes less the requests of
pods Gantry did not start. When the leader stops, the standby takes the Lease over, adopts the
running pod (the job keeps running, not placed again) and completes it from the pod's phase."""

import os
import tempfile
import unittest

from gantry_harness import BIN_DIR, Cluster, job_yaml, wait_until
from karmada_harness import KarmadaFixture

NODES = "/api/v1/nodes"
LEASE = "/apis/coordination.k8s.io/v1/namespaces/gantry-system/leases/lab-agent"


def node(name, gpus):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"nvidia.com/gpu.product": "A100"}},
            "spec": {},
            "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": str(gpus), "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pod(name, node_name, gpus):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "other", "name": name},
            "spec": {"nodeName": node_name, "containers": [
                {"name": "main", "image": "x", "resources": {"requests": {"nvidia.com/gpu": str(gpus)}}}]},
            "status": {"phase": "Running"}}


class ClusterRoleLease(unittest.TestCase):
    def setUp(self):
        self.api = KarmadaFixture(tempfile.mkdtemp(prefix="gantry-kube-"))  # a generic fixture API server
        self.addCleanup(self.api.close)
        for name in ("gpu-0", "gpu-1"):
            self.api.create(NODES, node(name, 8))
        # A lost grace longer than a standby's takeover (it retries the Lease every 2 s), as in
        # production (2m): the hub waits for the cluster instead of placing its jobs again.
        self.gantry = Cluster(lost_grace_ms=15_000)
        self.addCleanup(self.gantry.close)

    def start_cluster_agent(self, identity):
        return self.gantry._spawn(f"agent-{identity}", [
            os.path.join(BIN_DIR, "gantry-agent"), "--role", "cluster", "--hub", self.gantry.agents_endpoint,
            "--cluster", "lab", "--kubeconfig", self.api.kubeconfig, "--lease-namespace", "gantry-system",
            "--lease-name", "lab-agent", "--identity", identity, "--executor", "kubernetes", "--namespace",
            "jobs", "--heartbeat-ms", str(self.gantry.heartbeat_ms)])

    def lab(self):
        return next((c for c in self.gantry.get("clusters") if c["name"] == "lab"), None)

    def holder(self):
        status, lease = self.api.request("GET", LEASE)
        return lease["spec"].get("holderIdentity") if status == 200 else None

    def gang_pods(self):
        status, pods = self.api.request("GET", "/api/v1/namespaces/jobs/pods")
        return pods["items"] if status == 200 else []

    def test_the_standby_takes_over_and_adopts_the_running_gang(self):
        self.start_cluster_agent("agent-a")
        wait_until(lambda: self.holder() == "agent-a", "agent-a to take the Lease")
        lab = wait_until(lambda: (c := self.lab()) and c["ready"] and c["nodes"] == 2 and c,
                         "the leader to report Kubernetes' nodes")
        self.assertEqual(lab["capacity"]["nvidia.com/gpu"], 16)

        job = self.gantry.submit(job_yaml("on-k8s", [("w", 1, {"cpu": 1, "nvidia.com/gpu": 2}, ["train"], None)]))
        pod_of_job = wait_until(lambda: next(iter(self.gang_pods()), None), "the gang's pod")
        self.assertEqual(pod_of_job["metadata"]["labels"]["gantry.io/agent"], "lab")
        wait_until(lambda: self.gantry.job(job)["phase"] == "Running", "the gang to run")

        self.start_cluster_agent("agent-b")
        wait_until(lambda: "standing by" in self.gantry.log("agent-agent-b"), "agent-b to stand by")

        # A pod Gantry did not start takes 4 GPUs of gpu-0: the watch brings it to the hub.
        self.api.create("/api/v1/namespaces/other/pods", pod("other-team", "gpu-0", 4))
        wait_until(lambda: self.lab()["capacity"].get("nvidia.com/gpu") == 12, "the pod's GPUs to be subtracted")

        self.gantry.processes["agent-agent-a"].terminate()  # SIGTERM: it releases the Lease
        self.gantry.processes["agent-agent-a"].wait(timeout=30)
        wait_until(lambda: self.holder() == "agent-b", "agent-b to take the Lease over")
        wait_until(lambda: "holding the Lease" in self.gantry.log("agent-agent-b"), "agent-b to lead")
        wait_until(lambda: self.gantry.log("hub").count("cluster lab registered") >= 2,
                   "agent-b's own session with the hub")
        self.assertIn("took back 1 replica(s)", self.gantry.log("agent-agent-b"))
        # The adopted pod is Kubernetes' to count now (agent-b did not start it): 16 - 4 - 2.
        # Until agent-b's view of Kubernetes is synced its reports list no nodes (capacity {}).
        wait_until(lambda: (c := self.lab()) and c["ready"] and c["capacity"].get("nvidia.com/gpu") == 10,
                   "lab served again, the adopted pod counted")
        self.assertEqual(self.gantry.job(job)["phase"], "Running")
        self.assertEqual(self.gantry.job(job)["requeues"], 0, "the gang was taken back, not placed again")

        pod_path = f"/api/v1/namespaces/jobs/pods/{pod_of_job['metadata']['name']}/status"
        status, body = self.api.request("PATCH", pod_path, {"status": {"phase": "Succeeded"}},
                                        "application/merge-patch+json")
        self.assertEqual(status, 200, body)
        wait_until(lambda: self.gantry.job(job)["phase"] == "Completed", "the adopted gang to complete")


if __name__ == "__main__":
    unittest.main(verbosity=2)
