"""Karmada mode end to end: a FIXTURE Karmada API server (tests/fixtures/kube_api_fixture.py,
HTTPS with a CA, a client certificate and a bearer token made here with the openssl CLI) holding
ResourceBinding, Cluster and Volcano Job objects in Karmada's JSON shape, and a real gantry-hub
started with --karmada KUBECONFIG. The test plays Karmada's controllers: it reads the bindings
Gantry released and writes their status.aggregatedStatus."""

import json
import os
import ssl
import subprocess
import urllib.error
import urllib.request

from gantry_harness import SOURCE_DIR, Cluster, wait_until

FIXTURE = os.path.join(SOURCE_DIR, "tests", "fixtures", "kube_api_fixture.py")
BINDINGS = "/apis/work.karmada.io/v1alpha2/resourcebindings"
CLUSTERS = "/apis/cluster.karmada.io/v1alpha1/clusters"
TOKEN = "gantry-e2e-token"
GPU = "nvidia.com/gpu"


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certificates(directory):
    """A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA."""
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=fixture-ca",
             "-keyout", "ca.key", "-out", "ca.crt", cwd=directory)
    for name, extension in (("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", f"{name}.key",
                 "-out", f"{name}.csr", cwd=directory)
        with open(os.path.join(directory, f"{name}.ext"), "w") as f:
            f.write(extension + "\n")
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                 "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.crt", cwd=directory)


class KarmadaFixture:
    """The fixture API server as a subprocess, and a REST client for the test's own reads/writes."""

    def __init__(self, workdir, fixture_args=()):
        """fixture_args: more kube_api_fixture.py flags (e.g. --simulate-pods)."""
        self.dir = os.path.join(workdir, "karmada")
        os.makedirs(self.dir)
        make_certificates(self.dir)
        self.log = open(os.path.join(workdir, "karmada-fixture.log"), "ab")
        self.process = subprocess.Popen(
            ["/usr/bin/python3", FIXTURE, "--port", "0", "--tls-cert", self._path("server.crt"), "--tls-key",
             self._path("server.key"), "--client-ca", self._path("ca.crt"), "--token", TOKEN, *fixture_args],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline().split()
        assert line[:1] == ["LISTENING"], f"fixture did not start: {line}"
        self.server = f"https://127.0.0.1:{line[1]}"
        self.context = ssl.create_default_context(cafile=self._path("ca.crt"))
        self.context.load_cert_chain(self._path("client.crt"), self._path("client.key"))
        self.kubeconfig = self._write_kubeconfig()

    def _path(self, name):
        return os.path.join(self.dir, name)

    def _write_kubeconfig(self):
        path = self._path("kubeconfig")
        with open(path, "w") as f:
            f.write(f"""apiVersion: v1
kind: Config
current-context: karmada
clusters:
- name: karmada-apiserver
  cluster:
    server: {self.server}
    certificate-authority: ca.crt
contexts:
- name: karmada
  context: {{cluster: karmada-apiserver, user: gantry}}
users:
- name: gantry
  user:
    client-certificate: client.crt
    client-key: client.key
    token: {TOKEN}
""")
        return path

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
        self.process.stdout.close()
        self.log.close()

    # ------------------------------------------------------------ REST
    def request(self, method, path, body=None, content_type="application/json"):
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.server + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {TOKEN}")
        if data is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def create(self, path, obj):
        status, body = self.request("POST", path, obj)
        assert status in (200, 201), f"create {path}: {status} {body}"
        return body

    def bindings(self):
        status, body = self.request("GET", BINDINGS)
        assert status == 200, body
        return body["items"]

    def binding_path(self, binding):
        meta = binding["metadata"]
        return f"/apis/work.karmada.io/v1alpha2/namespaces/{meta['namespace']}/resourcebindings/{meta['name']}"

    def set_status(self, binding, phase):
        """What Karmada's status controller writes once the member workloads report: one
        aggregatedStatus item per cluster of spec.clusters."""
        pod_phase = {"Running": "Running", "Completed": "Succeeded"}[phase]
        items = [{"clusterName": c["name"], "applied": True, "health": "Healthy",
                  "status": {"state": {"phase": phase},
                             "taskStatusCount": {"worker": {"phase": {pod_phase: c["replicas"]}}}}}
                 for c in binding["spec"].get("clusters") or []]
        for _ in range(10):  # a controller retries a conflict (tests inject them)
            status, body = self.request("PATCH", self.binding_path(binding) + "/status",
                                        {"status": {"aggregatedStatus": items}}, "application/merge-patch+json")
            if status != 409:
                break
        assert status == 200, f"status of {binding['metadata']['name']}: {status} {body}"

    def fixture(self, method, path):
        status, body = self.request(method, "/fixture/" + path)
        assert status == 200, f"/fixture/{path}: {status} {body}"
        return body


# ------------------------------------------------------------ Karmada objects
def cluster_object(name, gpu_nodes, gpus_per_node=8, resource_models=True):
    """A member cluster whose resource models say: `gpu_nodes` nodes with `gpus_per_node` free GPUs.
    Without resource_models, Karmada reports only the summed resourceSummary (Gantry: summary fit)."""
    cluster = {
        "apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster",
        "metadata": {"name": name, "labels": {"region": name}},
        "spec": {"syncMode": "Push", "resourceModels": [
            {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "32"}, {"name": GPU, "min": "0", "max": "1"}]},
            {"grade": 1, "ranges": [{"name": "cpu", "min": "32", "max": "256"},
                                    {"name": GPU, "min": str(gpus_per_node), "max": str(gpus_per_node + 1)}]}]},
        "status": {
            "conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady"}],
            "resourceSummary": {
                "allocatable": {"cpu": str(64 * gpu_nodes), GPU: str(gpus_per_node * gpu_nodes)},
                "allocatableModelings": [{"grade": 0, "count": 0}, {"grade": 1, "count": gpu_nodes}]}}}
    if not resource_models:
        del cluster["spec"]["resourceModels"]
        del cluster["status"]["resourceSummary"]["allocatableModelings"]
    return cluster


QUEUES = "/apis/scheduling.volcano.sh/v1beta1/queues"


def gantry_queue_yaml(name, deserved_gpus=None):
    """A Gantry queue (gantryctl apply) of weight 1; with deserved_gpus, reclaimable with that share."""
    share = "" if deserved_gpus is None else f"""
  reclaimable: true
  deserved: {{nvidia.com/gpu: {deserved_gpus}}}"""
    return f"""apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: {name}
spec:
  weight: 1{share}
"""


def open_member_queue(name):
    """The Volcano Queue each member has (the user propagates it): Volcano's admission needs it Open."""
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": {"weight": 1}, "status": {"state": "Open"}}


def volcano_job(namespace, name, queue, replicas, gpus, annotations=None):
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"namespace": namespace, "name": name, "annotations": annotations or {}},
        "spec": {"queue": queue, "minAvailable": replicas, "schedulerName": "volcano", "tasks": [{
            "name": "worker", "replicas": replicas, "template": {"spec": {"containers": [{
                "name": "train", "image": "pytorch:latest",
                "resources": {"requests": {"cpu": "4", GPU: str(gpus)}, "limits": {GPU: str(gpus)}}}]}}}]}}


def binding_object(job, divided=False):
    """The ResourceBinding Karmada makes for `job`, as the webhook leaves it: suspended, scheduler gantry."""
    meta = job["metadata"]
    task = job["spec"]["tasks"][0]
    requests = task["template"]["spec"]["containers"][0]["resources"]["requests"]
    placement = {"clusterAffinity": {"clusterNames": []}}
    if divided:
        placement["replicaScheduling"] = {"replicaSchedulingType": "Divided",
                                          "replicaDivisionPreference": "Aggregated"}
    return {
        "apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding",
        "metadata": {"namespace": meta["namespace"], "name": meta["name"] + "-job"},
        "spec": {"resource": {"apiVersion": job["apiVersion"], "kind": "Job", "namespace": meta["namespace"],
                              "name": meta["name"]},
                 "replicas": task["replicas"], "replicaRequirements": {"resourceRequest": requests},
                 "placement": placement, "schedulerName": "gantry", "suspension": {"scheduling": True}}}


def submit_volcano_job(karmada, job, divided=False):
    karmada.create(f"/apis/batch.volcano.sh/v1alpha1/namespaces/{job['metadata']['namespace']}/jobs", job)
    binding = binding_object(job, divided)
    return karmada.create(
        f"/apis/work.karmada.io/v1alpha2/namespaces/{job['metadata']['namespace']}/resourcebindings", binding)


def released(binding):
    spec = binding["spec"]
    return bool(spec.get("clusters")) and not (spec.get("suspension") or {}).get("scheduling", False)


def decision(binding):
    text = (binding["metadata"].get("annotations") or {}).get("gantry.io/decision")
    return json.loads(text) if text else None


class KarmadaHub(Cluster):
    """A real gantry-hub in Karmada mode in front of the fixture."""

    def __init__(self, karmada, **kwargs):
        self.karmada = karmada
        kwargs.setdefault("hub_args", [])
        kwargs["hub_args"] = list(kwargs["hub_args"]) + ["--karmada", karmada.kubeconfig]
        super().__init__(**kwargs)


__all__ = ["QUEUES", "gantry_queue_yaml", "open_member_queue", "KarmadaFixture", "KarmadaHub", "cluster_object", "volcano_job", "binding_object",
           "submit_volcano_job", "released", "decision", "wait_until", "BINDINGS", "CLUSTERS", "GPU"]
