"""Acceptance (issue 25): gangs that really run in a Kubernetes member.

What is a FIXTURE here: the Kubernetes API servers (tests/fixtures/kube_api_fixture.py with
--simulate-pods, HTTPS with a client certificate and a token). Their scheduler and kubelet stand-ins
bind pods, mark them Running with a made-up podIP, keep unschedulable ones Pending with
kube-scheduler's message, end pods when the test says so (/fixture/pods/.../exit) and answer
cluster-DNS questions (/fixture/dns). No container runs in them.

What is REAL: gantry-hub, the cluster-role gantry-agents (kubernetes executor, pods mode: the
fixture serves no batch.volcano.sh), gantryctl, all separate processes on loopback; and the
torch.distributed gloo rendezvous of the gang, played by four local processes of
gloo_allreduce.py, each given exactly the env Gantry wrote into its pod, and an /etc/hosts (in a
private mount namespace) that maps the pods' DNS names to loopback, as cluster DNS maps them to
the pods' IPs. So the test proves that the names, ranks and ports Gantry hands its pods are enough
for PyTorch to meet, not that Kubernetes would run them.

- A 2-task, 4-pod gang (master x1, worker x3) runs as pods behind a headless Service named after
  the job; every pod's <hostname>.<subdomain> resolves (fixture DNS) to its podIP; MASTER_ADDR is
  rank 0's (the master's) name; RANK 0..3, WORLD_SIZE 4, VC_*_HOSTS / VC_*_NUM as Volcano's svc
  plugin; the gloo all-reduce of rank + 1 over the four gives 10; the pods' exits complete the job.
- In a member that runs Volcano (the fixture's --volcano-controller: Volcano's job admission and
  controller with its env, svc and pytorch plugins, read from Volcano's sources), the same gang
  under Volcano's pytorch plugin becomes one Volcano Job that keeps the tasks master and worker;
  Volcano makes the pods and its plugin tells them MASTER_ADDR, RANK and WORLD_SIZE; the same gloo
  all-reduce through those names gives 10; the pods' exits complete the job.
- A gang whose pods Kubernetes will not schedule (its template's required node affinity names a
  zone no node of the member is in: Gantry's placement reads nodeSelector, not affinity; the agent
  leaves binding to the scheduler with --scheduler-name) shows
  Pending with kube-scheduler's Unschedulable reason, is handed back to the hub after
  --pending-give-up-ms, its pods deleted, and runs and completes on another member cluster."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.parse

from gantry_harness import BIN_DIR, Cluster, Streamed, free_port, wait_until
from karmada_harness import KarmadaFixture

NAMESPACE = "jobs"
NODES = "/api/v1/nodes"
PODS = f"/api/v1/namespaces/{NAMESPACE}/pods"
SERVICES = f"/api/v1/namespaces/{NAMESPACE}/services"
GPU = "nvidia.com/gpu"
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gloo_allreduce.py")
ZONE = "topology.kubernetes.io/zone"


def node(name, gpus=8):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "nvidia.com/gpu.product": "A100"}},
            "spec": {},
            "status": {"allocatable": {"cpu": "64", "memory": "512Gi", GPU: str(gpus), "pods": "110"},
                       "capacity": {"cpu": "64", "memory": "512Gi", GPU: str(gpus), "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def gang_yaml(name, zone=None, plugins=""):
    """A PyTorch-style Volcano Job: master x1 + worker x3, one GPU each, all four needed. The
    template's own restartPolicy, env and labels show what of it reaches the pods; with `zone`,
    a required node affinity to that zone (Kubernetes' scheduler honours it, Gantry's placement
    does not read affinity)."""
    affinity = "" if zone is None else f"""
          affinity:
            nodeAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
                nodeSelectorTerms:
                  - matchExpressions:
                      - {{key: {ZONE}, operator: In, values: [{zone}]}}"""
    tasks = []
    for task, replicas in (("master", 1), ("worker", 3)):
        tasks.append(f"""
    - name: {task}
      replicas: {replicas}
      template:
        metadata:
          labels: {{app: trainer}}
        spec:
          restartPolicy: OnFailure{affinity}
          containers:
            - name: pytorch
              image: pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime
              command: ["python3", "/workspace/train.py"]
              env:
                - {{name: NCCL_DEBUG, value: INFO}}
              resources:
                requests: {{cpu: "1", {GPU}: "1"}}
                limits: {{{GPU}: "1"}}""")
    return f"""apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: {name}
spec:
  queue: default
  minAvailable: 4{plugins}
  tasks:{''.join(tasks)}
"""


def logged_job_yaml(name):
    """Two replicas whose pods have a trainer and a log-shipper sidecar: the trainer, the first
    container, is the one kubectl logs (and gantryctl logs) reads."""
    return f"""apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: {name}
spec:
  queue: default
  minAvailable: 2
  tasks:
    - name: worker
      replicas: 2
      template:
        spec:
          containers:
            - name: trainer
              image: pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime
              command: ["python3", "/workspace/train.py"]
              resources:
                requests: {{cpu: "1"}}
            - name: log-shipper
              image: fluent/fluent-bit:2.2
              resources:
                requests: {{cpu: "100m"}}
"""


def container_env(pod):
    """The pod's (first and only) container's env as a dict of its literal values."""
    env = pod["spec"]["containers"][0].get("env") or []
    return {var["name"]: var["value"] for var in env if "value" in var}


def dns_name(pod):
    return f"{pod['spec']['hostname']}.{pod['spec']['subdomain']}"


def torch_python():
    """A Python with torch.distributed and gloo: this one, else Debian's (python3-torch)."""
    for candidate in dict.fromkeys((sys.executable, "/usr/bin/python3")):
        probe = subprocess.run([candidate, "-c", "import torch.distributed as d; assert d.is_gloo_available()"],
                               capture_output=True)
        if probe.returncode == 0:
            return candidate
    return None


class KubeGang(unittest.TestCase):
    def setUp(self):
        self.workdir = tempfile.mkdtemp(prefix="gantry-kube-gang-")
        if os.environ.get("GANTRY_KEEP_E2E") is None:
            self.addCleanup(shutil.rmtree, self.workdir, ignore_errors=True)
        self.apis = []
        self.addCleanup(self.close_apis)
        self.api = self.start_api("lab")
        for name in ("gpu-0", "gpu-1", "gpu-2"):
            self.api.create(NODES, node(name))
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)  # agents stop before the fixtures they talk to
        self.rendezvous_port = free_port()

    # ------------------------------------------------------------ processes
    def start_api(self, name, *extra):
        """A fixture API server (scheduler, kubelet and DNS stand-ins on) of its own directory."""
        directory = os.path.join(self.workdir, name)
        os.makedirs(directory)
        api = KarmadaFixture(directory, fixture_args=["--simulate-pods", *extra])
        self.apis.append(api)
        return api

    def close_apis(self):
        for api in self.apis:
            api.close()
            api.process.stdout.close()  # read only for its LISTENING line

    def start_member(self, cluster, api, *extra):
        """A cluster-role agent with the kubernetes executor against `api`; waits until the hub
        lists the cluster ready with its three Kubernetes nodes."""
        self.gantry._spawn(f"agent-{cluster}", [
            os.path.join(BIN_DIR, "gantry-agent"), "--role", "cluster", "--hub", self.gantry.agents_endpoint,
            "--cluster", cluster, "--kubeconfig", api.kubeconfig, "--executor", "kubernetes",
            "--namespace", NAMESPACE, "--rendezvous-port", str(self.rendezvous_port),
            "--heartbeat-ms", str(self.gantry.heartbeat_ms), "--liveness", str(self.gantry.liveness),
            "--work-dir", os.path.join(self.workdir, f"agent-{cluster}"),
            *self.gantry.allow_agent(cluster), *extra])
        wait_until(lambda: (c := self.member(cluster)) and c["ready"] and c["nodes"] == 3,
                   f"cluster {cluster} to report Kubernetes' three nodes")

    # ------------------------------------------------------------ reading state
    def member(self, cluster):
        return next((c for c in self.gantry.get("clusters") if c["name"] == cluster), None)

    def pods(self, api, job):
        selector = urllib.parse.quote(f"gantry.io/job={job}")
        status, body = api.request("GET", f"{PODS}?labelSelector={selector}")
        self.assertEqual(status, 200, body)
        return body["items"]

    def running_pods(self, api, job, count):
        pods = self.pods(api, job)
        running = [p for p in pods if (p.get("status") or {}).get("phase") == "Running"]
        return len(pods) == count and len(running) == count and sorted(pods, key=self.rank)

    @staticmethod
    def rank(pod):
        return int(container_env(pod)["RANK"])

    def phase_is(self, job, phase):
        return (j := self.gantry.find_job(job)) is not None and j["phase"] == phase and j

    def logs(self, *names):
        return "\n".join(f"--- {name} log:\n{self.gantry.log(name)[-4000:]}" for name in names)

    def exit_pods(self, api, pods, code=0):
        for pod in pods:
            api.fixture("POST", f"pods/{NAMESPACE}/{pod['metadata']['name']}/exit?code={code}")

    def prints(self, api, pod, text, container="trainer"):
        """The pod's container prints `text` (the fixture's stand-in for its program)."""
        status, body = api.request("POST", f"/fixture/pods/{NAMESPACE}/{pod['metadata']['name']}/log"
                                           f"?container={container}", text.encode(), "text/plain")
        self.assertEqual(status, 200, body)

    # ------------------------------------------------------------ the gloo replicas
    def hosts_file(self, pods):
        """This machine's /etc/hosts plus every pod's <hostname>.<subdomain> and hostname on
        loopback: what cluster DNS and the pod's own /etc/hosts answer in a cluster."""
        path = os.path.join(self.workdir, "hosts")
        with open("/etc/hosts") as f:
            text = f.read()
        lines = [f"127.0.0.1 {dns_name(pod)} {pod['spec']['hostname']}" for pod in pods]
        with open(path, "w") as f:
            f.write(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n")
        return path

    @staticmethod
    def in_private_hosts(hosts, argv):
        """argv run in a private mount namespace whose /etc/hosts is `hosts`."""
        return ["unshare", "-m", "sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$@"', hosts, *argv]

    def private_hosts_refused(self, hosts, name):
        """Why a private /etc/hosts cannot be had here ('' when it can): needs unshare + mount."""
        try:
            probe = subprocess.run(self.in_private_hosts(hosts, ["getent", "hosts", name]),
                                   capture_output=True, text=True, timeout=60)
        except OSError as error:
            return str(error)
        if probe.returncode != 0 or not probe.stdout.startswith("127.0.0.1"):
            return f"exit {probe.returncode}: {probe.stdout}{probe.stderr}".strip()
        return ""

    def run_gloo(self, python, hosts, pods):
        """One gloo_allreduce.py per pod, with that pod's env only; returns their outputs."""
        processes = []
        for pod in pods:
            env = container_env(pod)
            env.update(PATH=os.environ.get("PATH", "/usr/bin:/bin"), GLOO_SOCKET_IFNAME="lo",
                       TP_SOCKET_IFNAME="lo")
            if "PYTHONPATH" in os.environ:
                env["PYTHONPATH"] = os.environ["PYTHONPATH"]
            processes.append(subprocess.Popen(
                self.in_private_hosts(hosts, [python, SCRIPT, "--timeout-s", "120"]), env=env,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        outputs = []
        try:
            for process in processes:
                outputs.append((process.communicate(timeout=240)[0], process.returncode))
        finally:
            for process in processes:
                if process.poll() is None:
                    process.kill()
                    process.wait()
        return outputs

    def gloo_world(self, pods, rank0_name):
        """The gloo all-reduce over `pods`, each process given its pod's env; '' when it ran, else
        why it could not run here."""
        python = torch_python()
        if python is None:
            return "no python3 with torch.distributed gloo (Debian: python3-torch)"
        hosts = self.hosts_file(pods)
        refused = self.private_hosts_refused(hosts, rank0_name)
        if refused:
            return f"no private /etc/hosts (unshare -m + mount --bind): {refused}"
        outputs = self.run_gloo(python, hosts, pods)
        for rank, (output, code) in enumerate(outputs):
            self.assertEqual(code, 0, output)
            self.assertIn(f"rank {rank} allreduce sum 10.0 world 4", output)
        return ""

    # ------------------------------------------------------------ tests
    def test_a_gang_runs_as_pods_that_meet_by_their_service_names(self):
        self.start_member("lab", self.api)
        job = self.gantry.submit(gang_yaml("kube-gang"))
        self.assertEqual(job, "kube-gang")
        pods = wait_until(lambda: self.running_pods(self.api, job, 4), "the gang's four pods to run")
        wait_until(lambda: self.phase_is(job, "Running"), "the job to run", deadline_s=30)

        # The headless Service named after the job selects this run's pods.
        dispatch = pods[0]["metadata"]["labels"]["gantry.io/dispatch-id"]
        status, service = self.api.request("GET", f"{SERVICES}/{job}")
        self.assertEqual(status, 200, service)
        self.assertEqual(service["spec"]["clusterIP"], "None")
        self.assertTrue(service["spec"]["publishNotReadyAddresses"])
        self.assertEqual(service["spec"]["selector"], {"gantry.io/agent": "lab", "gantry.io/dispatch-id": dispatch})

        names = [f"{job}-master-0.{job}"] + [f"{job}-worker-{i}.{job}" for i in range(3)]
        self.assertEqual([dns_name(p) for p in pods], names, "ranks in task order, Volcano's svc names")
        for pod in pods:
            spec, env = pod["spec"], container_env(pod)
            self.assertEqual(spec["subdomain"], job)
            self.assertEqual(spec["restartPolicy"], "Never", "Gantry retries, not the kubelet")
            self.assertIn(spec["nodeName"], ("gpu-0", "gpu-1", "gpu-2"))
            self.assertEqual(spec["containers"][0]["image"], "pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime")
            self.assertEqual(pod["metadata"]["labels"]["app"], "trainer", "the template's labels are kept")
            self.assertEqual(env["NCCL_DEBUG"], "INFO", "the template's env is kept")
            status, answer = self.api.request(
                "GET", f"/fixture/dns?name={urllib.parse.quote(dns_name(pod))}&namespace={NAMESPACE}")
            self.assertEqual(status, 200, answer)
            self.assertEqual(answer["addresses"], [pod["status"]["podIP"]], dns_name(pod))
            self.assertEqual(env["MASTER_ADDR"], f"{job}-master-0.{job}")
            self.assertEqual(env["MASTER_PORT"], str(self.rendezvous_port))
            self.assertEqual(env["WORLD_SIZE"], "4")
            self.assertEqual(env["VC_MASTER_HOSTS"], names[0])
            self.assertEqual(env["VC_MASTER_NUM"], "1")
            self.assertEqual(env["VC_WORKER_HOSTS"], ",".join(names[1:]))
            self.assertEqual(env["VC_WORKER_NUM"], "3")
            self.assertEqual(env["GANTRY_JOB"], job)
        self.assertEqual([self.rank(p) for p in pods], [0, 1, 2, 3])
        self.assertEqual(container_env(pods[0])["GANTRY_TASK"], "master", "rank 0 is the master")
        self.assertEqual([container_env(p)["GANTRY_TASK"] for p in pods[1:]], ["worker"] * 3)

        # Real gloo through those names (when this machine lets the test give them a private /etc/hosts).
        python = torch_python()
        hosts = self.hosts_file(pods)
        refused = self.private_hosts_refused(hosts, names[0])
        if python is not None and not refused:
            outputs = self.run_gloo(python, hosts, pods)
            for rank, (output, code) in enumerate(outputs):
                self.assertEqual(code, 0, output)
                self.assertIn(f"rank {rank} allreduce sum 10.0 world 4", output)

        self.exit_pods(self.api, pods)
        wait_until(lambda: self.phase_is(job, "Completed"), "the job to complete from its pods' exits")
        if python is None:
            self.skipTest("gloo part not run: no python3 with torch.distributed gloo (Debian: python3-torch)")
        if refused:
            self.skipTest(f"gloo part not run: no private /etc/hosts (unshare -m + mount --bind): {refused}")

    def test_a_volcano_member_runs_the_gang_with_volcanos_own_pytorch_plugin(self):
        api = self.start_api("volcano", "--volcano-controller")
        for name in ("gpu-0", "gpu-1", "gpu-2"):
            api.create(NODES, node(name))
        self.start_member("volcano", api)
        plugins = f"""
  plugins:
    pytorch: ["--master=master", "--worker=worker", "--port={self.rendezvous_port}"]"""
        job = self.gantry.submit(gang_yaml("vc-gang", plugins=plugins))
        pods = wait_until(lambda: self.running_pods(api, job, 4), "Volcano's four pods of the gang to run")
        wait_until(lambda: self.phase_is(job, "Running"), "the job to run", deadline_s=30)

        dispatch = pods[0]["metadata"]["labels"]["gantry.io/dispatch-id"]
        vcjob_name = f"{job}-{dispatch}"
        status, vcjob = api.request("GET", f"/apis/batch.volcano.sh/v1alpha1/namespaces/{NAMESPACE}/jobs/{vcjob_name}")
        self.assertEqual(status, 200, vcjob)
        self.assertEqual([(t["name"], t["replicas"]) for t in vcjob["spec"]["tasks"]], [("master", 1), ("worker", 3)],
                         "the job's own tasks, which Volcano's pytorch plugin finds by name")
        self.assertEqual(vcjob["spec"]["minAvailable"], 4)
        self.assertEqual(vcjob["spec"]["plugins"]["pytorch"],
                         ["--master=master", "--worker=worker", f"--port={self.rendezvous_port}"])

        names = [f"{vcjob_name}-master-0"] + [f"{vcjob_name}-worker-{i}" for i in range(3)]
        self.assertEqual([p["metadata"]["name"] for p in pods], names, "RANK from Volcano: master 0, worker i+1")
        master = f"{names[0]}.{vcjob_name}"
        for pod in pods:
            env = container_env(pod)
            self.assertEqual(dns_name(pod), f"{pod['metadata']['name']}.{vcjob_name}", "Volcano's svc names")
            self.assertEqual(env["MASTER_ADDR"], master)
            self.assertEqual(env["MASTER_PORT"], str(self.rendezvous_port))
            self.assertEqual(env["WORLD_SIZE"], "4")
            self.assertEqual(env["NCCL_DEBUG"], "INFO", "the template's env is kept")
            self.assertEqual(env["GANTRY_JOB"], job)
            self.assertEqual(pod["spec"]["restartPolicy"], "Never", "Gantry retries, not the kubelet")
            status, answer = api.request(
                "GET", f"/fixture/dns?name={urllib.parse.quote(dns_name(pod))}&namespace={NAMESPACE}")
            self.assertEqual(status, 200, answer)
            self.assertEqual(answer["addresses"], [pod["status"]["podIP"]], dns_name(pod))
        self.assertEqual([self.rank(p) for p in pods], [0, 1, 2, 3])
        self.assertEqual([container_env(p)["VC_TASK_INDEX"] for p in pods], ["0", "0", "1", "2"])

        skipped = self.gloo_world(pods, master)
        self.exit_pods(api, pods)
        wait_until(lambda: self.phase_is(job, "Completed"), "the job to complete from its pods' exits")
        if skipped:
            self.skipTest(f"gloo part not run: {skipped}")

    def test_gantryctl_logs_reads_a_pods_log_through_the_api_server(self):
        self.start_member("lab", self.api)
        job = self.gantry.submit(logged_job_yaml("talker"))
        pods = wait_until(lambda: self.running_pods(self.api, job, 2), "the two pods to run")
        wait_until(lambda: self.phase_is(job, "Running"), "the job to run", deadline_s=30)
        self.prints(self.api, pods[0], "rank 0 step 1\n")
        self.prints(self.api, pods[0], "shipped 12 lines\n", container="log-shipper")
        self.prints(self.api, pods[1], "rank 1 step 1\nrank 1 step 2\n")

        # Two containers: the API server wants one named; Gantry names kubectl's default.
        self.assertEqual(self.gantry.ctl("logs", "job", job).stdout, "rank 0 step 1\n")
        self.assertEqual(self.gantry.ctl("logs", "job", job, "--replica", "1", "--tail", "1").stdout,
                         "rank 1 step 2\n")
        log_reads = [r for r in self.api.fixture("GET", "requests") if r["path"].endswith("/log")]
        self.assertEqual([r["status"] for r in log_reads], [200, 200])
        self.assertIn("container=trainer", log_reads[0]["query"])
        self.assertIn("tailLines=1", log_reads[1]["query"])

        follow = Streamed(self.gantry, "logs", "job", job, "-f")
        self.addCleanup(follow.stop)
        follow.wait_for(lambda line: line == "rank 0 step 1", "what the trainer printed so far")
        self.prints(self.api, pods[0], "rank 0 step 2\n")
        follow.wait_for(lambda line: line == "rank 0 step 2", "what it prints next, as it prints it")
        self.assertEqual(follow.process.poll(), None, "still following while the container runs")
        self.exit_pods(self.api, pods)
        self.assertEqual(follow.process.wait(timeout=60), 0, "the log ends with its container")
        follow.stop()
        self.assertEqual(follow.seen, ["rank 0 step 1", "rank 0 step 2"])

        wait_until(lambda: self.phase_is(job, "Completed"), "the job to complete")
        # An ended pod's log stays readable while its pod is kept, as with kubectl logs.
        self.assertEqual(self.gantry.ctl("logs", "job", job, "--replica", "1").stdout,
                         "rank 1 step 1\nrank 1 step 2\n")

    def test_a_pod_still_starting_has_no_log_yet_in_the_api_servers_words(self):
        api = self.start_api("slow", "--kubelet-start-ms", "600000")  # its kubelets never start them
        for name in ("gpu-0", "gpu-1", "gpu-2"):
            api.create(NODES, node(name))
        self.start_member("slow", api)
        job = self.gantry.submit(logged_job_yaml("slow-start"))
        pods = wait_until(lambda: len(p := self.pods(api, job)) == 2 and all(x["spec"].get("nodeName") for x in p)
                          and p, "the two pods to be bound")
        self.assertEqual({(p.get("status") or {}).get("phase") for p in pods}, {"Pending"})
        # Until the agent's pod watch has shown it the pod, the agent knows of no pod to read.
        refused = wait_until(lambda: "has no pod" not in (r := self.gantry.ctl("logs", "job", job, check=False)).stderr
                             and r, "the agent to see the pod it made")
        self.assertEqual(refused.returncode, 1, refused.stdout)
        self.assertRegex(refused.stderr, r'^error: container "trainer" in pod "[^"]+" is waiting to start: '
                                         r'ContainerCreating\n$')

    def test_pods_kubernetes_will_not_schedule_are_handed_back_and_run_elsewhere(self):
        # Every node of 'zone-a' is in zone a, the job's pods need zone b; its agent leaves
        # binding to the (fixture's) default scheduler, so the pods wait Unschedulable.
        for name in ("gpu-0", "gpu-1", "gpu-2"):
            status, body = self.api.request("PATCH", f"{NODES}/{name}", {"metadata": {"labels": {ZONE: "a"}}},
                                            "application/merge-patch+json")
            self.assertEqual(status, 200, body)
        self.start_member("zone-a", self.api, "--scheduler-name", "default-scheduler",
                          "--pending-give-up-ms", "3000")
        spare_api = self.start_api("spare")
        for name in ("gpu-0", "gpu-1", "gpu-2"):
            in_zone_b = node(name)
            in_zone_b["metadata"]["labels"][ZONE] = "b"
            spare_api.create(NODES, in_zone_b)
        self.start_member("spare", spare_api)
        # 'spare' takes no placement until the job is seen waiting on 'zone-a'.
        self.gantry.ctl("cordon", "cluster", "spare")

        job = self.gantry.submit(gang_yaml("held-back", zone="b"))
        pending = wait_until(
            lambda: (j := self.phase_is(job, "Pending")) and "Unschedulable" in j["reason"] and j,
            "the job to wait on Kubernetes' scheduler")
        self.assertIn("waiting on zone-a:", pending["reason"])
        self.assertIn("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector",
                      pending["reason"])
        self.assertEqual(pending["clusters"], ["zone-a"])
        waiting = self.pods(self.api, job)
        self.assertTrue(waiting, "its pods exist while it waits")
        for pod in waiting:
            self.assertEqual(pod["spec"].get("schedulerName"), "default-scheduler")
            self.assertNotIn("nodeName", pod["spec"])

        self.gantry.ctl("uncordon", "cluster", "spare")
        wait_until(lambda: f"job {job} rejected by cluster zone-a" in self.gantry.log("hub"),
                   "the hub to hear that zone-a handed the job back")
        described = self.gantry.ctl("describe", "job", job).stdout
        self.assertIn("rejected by zone-a: its replicas did not all run within", described)
        self.assertIn("Unschedulable", described)
        self.assertIn("handing it back to the hub", self.gantry.log("agent-zone-a"))

        pods = wait_until(lambda: self.running_pods(spare_api, job, 4), "the gang's pods to run on spare")
        running = wait_until(lambda: self.phase_is(job, "Running"), "the job to run on spare")
        self.assertEqual(running["clusters"], ["spare"], self.logs("hub", "agent-zone-a"))
        wait_until(lambda: not self.pods(self.api, job), "zone-a to delete the pods it gave up")

        self.exit_pods(spare_api, pods)
        done = wait_until(lambda: self.phase_is(job, "Completed"), "the job to complete on spare")
        self.assertEqual(done["clusters"], ["spare"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
