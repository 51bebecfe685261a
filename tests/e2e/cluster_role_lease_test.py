"""Acceptance (agents in Kubernetes): two cluster-role agents of one member cluster, as separate
processes, against a FIXTURE Kubernetes API server (HTTPS, client certificate, token; no real
API server runs here). One wins the coordination.k8s.io Lease, holds the hub session and runs a
gang as a Pod (kubernetes executor); the cluster's nodes are Kubernetes' Nodes less the requests of
pods Gantry did not start. When the leader stops, the standby takes the Lease over, adopts the
running pod (the job keeps running, not placed again) and completes it from the pod's phase.
Until its view of Kubernetes has listed Nodes and Pods, a cluster-role agent serves nothing: the hub
shows the cluster NotReady(syncing), places nothing there, and no AddOnPlacementScore is written.
A Lease renewal the API server does not answer leaves the agent serving (it renews off its loop)
until the renew deadline, when it stops as having lost the Lease (status 4)."""

import os
import tempfile
import unittest

from gantry_harness import BIN_DIR, Cluster, free_port, http_get, job_yaml, wait_until
from karmada_harness import KarmadaFixture

NODES = "/api/v1/nodes"
LEASE = "/apis/coordination.k8s.io/v1/namespaces/gantry-system/leases/lab-agent"
SCORE = "/apis/cluster.open-cluster-management.io/v1alpha1/namespaces/lab/addonplacementscores/resource-usage-score"


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

    def start_cluster_agent(self, identity, *extra):
        return self.gantry._spawn(f"agent-{identity}", [
            os.path.join(BIN_DIR, "gantry-agent"), "--role", "cluster", "--hub", self.gantry.agents_endpoint,
            "--cluster", "lab", "--kubeconfig", self.api.kubeconfig, "--lease-namespace", "gantry-system",
            "--lease-name", "lab-agent", "--identity", identity, "--executor", "kubernetes", "--namespace",
            "jobs", "--heartbeat-ms", str(self.gantry.heartbeat_ms), *self.gantry.allow_agent("lab"),
            *extra])

    def lab(self):
        return next((c for c in self.gantry.get("clusters") if c["name"] == "lab"), None)

    def holder(self):
        status, lease = self.api.request("GET", LEASE)
        return lease["spec"].get("holderIdentity") if status == 200 else None

    def gang_pods(self):
        status, pods = self.api.request("GET", "/api/v1/namespaces/jobs/pods")
        return pods["items"] if status == 200 else []

    def kubelet_starts(self, job):
        """What the kubelet does in a real cluster (this fixture runs no pods): the job's pod turns
        Running; until then the agent reports the gang Pending."""
        pod = wait_until(lambda: next((p for p in self.gang_pods()
                                       if p["metadata"]["labels"]["gantry.io/job"] == job), None),
                         f"{job}'s pod")
        path = f"/api/v1/namespaces/jobs/pods/{pod['metadata']['name']}/status"
        status, body = self.api.request("PATCH", path, {"status": {"phase": "Running"}},
                                        content_type="application/merge-patch+json")
        self.assertEqual(status, 200, body)
        return pod

    def test_the_standby_takes_over_and_adopts_the_running_gang(self):
        self.start_cluster_agent("agent-a")
        wait_until(lambda: self.holder() == "agent-a", "agent-a to take the Lease")
        lab = wait_until(lambda: (c := self.lab()) and c["ready"] and c["nodes"] == 2 and c,
                         "the leader to report Kubernetes' nodes")
        self.assertEqual(lab["capacity"]["nvidia.com/gpu"], 16)

        job = self.gantry.submit(job_yaml("on-k8s", [("w", 1, {"cpu": 1, "nvidia.com/gpu": 2}, ["train"], None)]))
        pod_of_job = self.kubelet_starts(job)
        self.assertEqual(pod_of_job["metadata"]["labels"]["gantry.io/agent"], "lab")
        wait_until(lambda: self.gantry.job(job)["phase"] == "Running", "the gang to run")

        # Its HTTP endpoint serves while it stands by: the pod's liveness probe passes, /readyz
        # says why not, and /metrics has no series (a standby is no disconnected agent).
        http_port, token = free_port(), os.path.join(self.gantry.workdir, "agent-b.token")
        self.start_cluster_agent("agent-b", "--http-listen", f"127.0.0.1:{http_port}",
                                 "--metrics-token-file", token)
        wait_until(lambda: "standing by" in self.gantry.log("agent-agent-b"), "agent-b to stand by")
        self.assertEqual(http_get(http_port, "/healthz"), (200, "ok\n"))
        status, why = http_get(http_port, "/readyz")
        self.assertEqual(status, 503, why)
        self.assertIn("standing by", why)
        self.assertEqual(http_get(http_port, "/metrics", token), (200, ""))

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
        wait_until(lambda: 'gantry_agent_hub_connected{cluster="lab",role="cluster"} 1'
                   in http_get(http_port, "/metrics", token)[1], "agent-b's /metrics as the leader")
        self.assertEqual(http_get(http_port, "/readyz"), (200, "ok\n"))
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

    def test_nothing_is_served_before_the_kubernetes_view_has_synced(self):
        status, body = self.api.request("POST", "/fixture/hold-writes?path_contains=/api/v1/pods&methods=GET")
        self.assertEqual(status, 200, body)  # the pod list does not answer until released
        self.addCleanup(self.api.request, "POST", "/fixture/release-writes")
        self.start_cluster_agent("agent-a", "--ocm-namespace", "lab")
        lab = wait_until(lambda: (c := self.lab()) and c["notReadyReason"] == "syncing" and c,
                         "the hub to hear lab is syncing")
        self.assertFalse(lab["ready"])
        self.assertEqual(lab["nodes"], 0)
        self.assertIn("NotReady(syncing)", self.gantry.ctl("get", "clusters").stdout)
        job = self.gantry.submit(job_yaml("early", [("w", 1, {"cpu": 1, "nvidia.com/gpu": 2}, ["train"], None)]))
        # While the pod list is held the cluster cannot turn ready: nothing can be placed yet.
        self.assertEqual(self.gantry.job(job)["phase"], "Pending")
        self.assertEqual(self.api.request("GET", SCORE)[0], 404, "no score object before the sync")

        self.api.request("POST", "/fixture/release-writes")
        lab = wait_until(lambda: (c := self.lab()) and c["ready"] and c, "lab ready once synced")
        self.assertEqual(lab["notReadyReason"], "")
        self.assertEqual((lab["nodes"], lab["capacity"]["nvidia.com/gpu"]), (2, 16))
        # The first scores (every 30 s) are computed at the sync: the object and the hub agree.
        score = wait_until(lambda: (r := self.api.request("GET", SCORE))[0] == 200 and r[1], "the score object")
        values = {item["name"]: item["value"] for item in score["status"]["scores"]}
        self.assertEqual(values["gpuClusterAvailable"], lab["ocmScores"]["gpuClusterAvailable"],
                         "written from the synced view, as the hub was told")
        self.kubelet_starts(job)
        wait_until(lambda: self.gantry.job(job)["phase"] == "Running", "the job placed on lab")

    def test_a_hanging_renewal_leaves_the_agent_serving_until_the_renew_deadline(self):
        agent = self.start_cluster_agent("agent-a")
        wait_until(lambda: (c := self.lab()) and c["ready"] and c["nodes"] == 2, "agent-a to serve lab")
        status, body = self.api.request("POST", "/fixture/hold-writes?path_contains=/leases&methods=PUT")
        self.assertEqual(status, 200, body)
        self.addCleanup(self.api.request, "POST", "/fixture/release-writes")
        wait_until(lambda: self.api.request("GET", "/fixture/held-writes")[1]["held"] == 1,
                   "a renewal to hang on the API server")
        # The loop still serves: a pod of another team reaches the hub while the renewal hangs.
        self.api.create("/api/v1/namespaces/other/pods", pod("other-team", "gpu-0", 4))
        wait_until(lambda: self.lab()["capacity"].get("nvidia.com/gpu") == 12, "the pod's GPUs to be subtracted")
        self.assertIsNone(agent.poll(), "still serving while the renewal hangs")
        wait_until(lambda: "lost the Lease: no renewal succeeded within" in self.gantry.log("agent-agent-a"),
                   "the Lease to count as lost at the renew deadline")
        # The hung call ends when the server answers (or the client's 30 s timeout): then the agent exits.
        self.api.request("POST", "/fixture/release-writes")
        self.assertEqual(agent.wait(timeout=60), 4, "stopped as having lost the Lease")


if __name__ == "__main__":
    unittest.main(verbosity=2)
