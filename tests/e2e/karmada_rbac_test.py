"""RBAC = reads (Karmada mode): what a real gantry-hub asks of a FIXTURE Karmada API server while it
schedules a binding of every workload kind it handles (a Volcano Job, a Deployment, a StatefulSet, a
batch/v1 Job), and leaves alone a ConfigMap's binding (suspended and named for Gantry, as the old
webhook left it) and a Deployment's for Karmada's default scheduler, is, as (apiGroup, resource,
verb), exactly what the ClusterRole in deploy/karmada/rbac.yaml grants. A request the hub makes
without a grant, or a grant it never uses, fails the test; so a change to either side alone does.
(deploy/helm has no Karmada RBAC: its hub.yaml points to deploy/karmada.)"""

import os
import re
import tempfile
import unittest

import yaml

from gantry_harness import SOURCE_DIR
from karmada_harness import (CLUSTERS, GPU, KarmadaFixture, KarmadaHub, cluster_object, decision, released,
                             submit_volcano_job, volcano_job, wait_until)

RBAC = os.path.join(SOURCE_DIR, "deploy", "karmada", "rbac.yaml")
NAMESPACE = "team-a"
HUB_USER_AGENT = "gantry"  # kube::Client's

# A resource path: /api/v1 (core) or /apis/GROUP/VERSION, then an optional namespace, the plural, an
# optional name and subresource.
RESOURCE_PATH = re.compile(r"^/(?:api/(?P<core>v1)|apis/(?P<group>[^/]+)/[^/]+)"
                           r"(?:/namespaces/[^/]+)?/(?P<resource>[^/]+)(?:/(?P<name>[^/]+))?(?:/(?P<sub>[^/]+))?$")


def rbac_triple(request):
    """(apiGroup, resource, verb) of one API request, as the API server's authorizer names it."""
    match = RESOURCE_PATH.match(request["path"])
    assert match, f"not a resource path: {request['path']}"
    group = "" if match["core"] else match["group"]
    resource = match["resource"] + (f"/{match['sub']}" if match["sub"] else "")
    query = request["query"] or ""
    if request["method"] == "GET" and match["name"] is None:
        verb = "watch" if re.search(r"(^|&)watch=(1|true)", query) else "list"
    else:
        verb = {"GET": "get", "PATCH": "patch", "PUT": "update", "POST": "create",
                "DELETE": "delete"}[request["method"]]
    return group, resource, verb


def granted():
    """Every (apiGroup, resource, verb) the hub's ClusterRole grants."""
    with open(RBAC, encoding="utf-8") as stream:
        (role,) = [d for d in yaml.safe_load_all(stream)
                   if d and d["kind"] == "ClusterRole" and d["metadata"]["name"] == "gantry-hub"]
    return {(group, resource, verb) for rule in role["rules"] for group in rule["apiGroups"]
            for resource in rule["resources"] for verb in rule["verbs"]}


def workload(api_version, kind, name, gpus=1):
    """A generic workload and the binding Karmada makes for it (its replicaRequirements)."""
    obj = {"apiVersion": api_version, "kind": kind, "metadata": {"namespace": NAMESPACE, "name": name}}
    binding = {"apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding",
               "metadata": {"namespace": NAMESPACE, "name": f"{name}-{kind.lower()}"},
               "spec": {"resource": {"apiVersion": api_version, "kind": kind, "namespace": NAMESPACE,
                                     "name": name},
                        "replicas": 1, "replicaRequirements": {"resourceRequest": {GPU: str(gpus)}},
                        "placement": {}, "schedulerName": "gantry", "suspension": {"scheduling": True}}}
    return obj, binding


def collection(api_version, kind):
    prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    return f"{prefix}/namespaces/{NAMESPACE}/{kind.lower()}s"


class KarmadaRbac(unittest.TestCase):
    def setUp(self):
        self.workdir = tempfile.mkdtemp(prefix="gantry-karmada-rbac-")
        self.karmada = KarmadaFixture(self.workdir)
        self.addCleanup(self.karmada.close)
        for name in ("east", "west"):
            self.karmada.create(CLUSTERS, cluster_object(name, gpu_nodes=2))
        self.gantry = KarmadaHub(self.karmada)
        self.addCleanup(self.gantry.close)
        self.gantry.wait_ready_clusters(2)

    def create(self, obj, binding):
        self.karmada.create(collection(obj["apiVersion"], obj["kind"]), obj)
        self.karmada.create(collection("work.karmada.io/v1alpha2", "ResourceBinding"), binding)
        return binding["metadata"]["name"]

    def binding(self, name):
        return next(b for b in self.karmada.bindings() if b["metadata"]["name"] == name)

    def test_the_hub_uses_exactly_what_its_role_grants(self):
        # 3 whole nodes of 4: split over both clusters, so its OverridePolicy is created
        # (the one-cluster Volcano release below deletes any left from a split).
        wide = submit_volcano_job(self.karmada, volcano_job(NAMESPACE, "wide", "default", 3, 8), divided=True)
        wait_until(lambda: len(self.binding(wide["metadata"]["name"])["spec"].get("clusters") or []) == 2,
                   "the wide gang released as a split")
        scheduled = [wide["metadata"]["name"],
                     submit_volcano_job(self.karmada, volcano_job(NAMESPACE, "train", "default", 1, 1))
                     ["metadata"]["name"]]
        for api_version, kind in (("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"), ("batch/v1", "Job")):
            scheduled.append(self.create(*workload(api_version, kind, f"w-{kind.lower()}")))
        settings, settings_binding = workload("v1", "ConfigMap", "settings")
        ignored = [self.create(settings, settings_binding)]
        web, web_binding = workload("apps/v1", "Deployment", "karmada-web")
        web_binding["spec"]["schedulerName"] = "default-scheduler"
        del web_binding["spec"]["suspension"]
        ignored.append(self.create(web, web_binding))

        wait_until(lambda: all(released(self.binding(name)) for name in scheduled),
                   "Gantry to release the binding of every kind it schedules")
        self.assertEqual(sorted(j["name"] for j in self.gantry.get("jobs")),
                         sorted(f"{NAMESPACE}.{name}" for name in scheduled), "Gantry's jobs")

        for name in ignored:
            binding = self.binding(name)
            self.assertIsNone(decision(binding), f"{name} is not Gantry's")
            self.assertFalse(binding["spec"].get("clusters"), f"{name} placed by Gantry")
        hub_requests = [r for r in self.karmada.fixture("GET", "requests") if r["user_agent"] == HUB_USER_AGENT]
        self.assertTrue(hub_requests, "the fixture logged none of the hub's requests")
        refused = [r for r in hub_requests if r["status"] in (401, 403)]
        self.assertEqual(refused, [], "requests the API server refused")
        paths = {r["path"] for r in hub_requests}
        for gone in ("/api/v1/namespaces/team-a/configmaps/settings",
                     "/apis/apps/v1/namespaces/team-a/deployments/karmada-web"):
            self.assertNotIn(gone, paths, "the hub read a workload it does not schedule")
        used = {rbac_triple(r) for r in hub_requests}
        self.assertEqual(sorted(used - granted()), [], "requests deploy/karmada/rbac.yaml does not grant")
        self.assertEqual(sorted(granted() - used), [], "grants in deploy/karmada/rbac.yaml the hub never uses")


if __name__ == "__main__":
    unittest.main(verbosity=2)
