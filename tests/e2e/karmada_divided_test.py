"""Karmada mode, split gangs that members can run (docs/karmada.md, issue 26): a FIXTURE Karmada API
server applying released bindings to 3 members as Karmada does (--karmada-members: the whole Volcano
Job to every listed cluster - Karmada has no ReviseReplica for it - then OverridePolicies, then the
member's Volcano admission), a Divided placement, and a real gantry-hub.

- A batch of Volcano Job bindings, some of which fit no single member and must split (one task, and
  master + workers with task minAvailable and minSuccess): every released split's members each got
  exactly their part - tasks' replicas their share, minAvailable the part's replicas, no task
  minAvailable above its replicas - through Gantry's OverridePolicy, no member refused anything, the
  policy is gone once the job is over, and every job completes.
- A pytorch-plugin job too big for one member is never split: it waits, suspended, and `describe
  job` says why."""

import tempfile
import time
import unittest

from karmada_harness import (CLUSTERS, GPU, KarmadaFixture, KarmadaHub, binding_object, cluster_object,
                             decision, gantry_queue_yaml, open_member_queue, released, wait_until)

NS = "team-a"
QUEUE = "train"
MEMBERS = ("north", "west", "south")  # 2 nodes x 8 GPUs each
GANTRY_QUEUE = gantry_queue_yaml(QUEUE)
MEMBER_QUEUE = open_member_queue(QUEUE)
POLICIES = f"/apis/policy.karmada.io/v1alpha1/namespaces/{NS}/overridepolicies"
PYTORCH_REASON = "not split: Volcano's pytorch plugin needs every replica in one cluster"
# (name, [(task, replicas, GPUs each, task minAvailable or None)], minSuccess or None); 24 GPUs fit no
# member (16 each): those must split.
# 40 bindings over 3 members, as the run had.
BATCH = [(f"one-{i}", [("worker", 4, 4, None)], None) for i in range(12)] + \
        [(f"wide-{i}", [("worker", 6, 4, None)], None) for i in range(10)] + \
        [(f"mw-{i}", [("master", 1, 4, 1), ("worker", 5, 4, 3)], 6) for i in range(10)] + \
        [(f"small-{i}", [("worker", 2, 2, None)], None) for i in range(8)]


def volcano_job(name, tasks, min_success=None, plugins=None):
    def task(task_name, replicas, gpus, min_available):
        spec = {"name": task_name, "replicas": replicas, "template": {"spec": {"containers": [{
            "name": "train", "image": "pytorch:latest",
            "resources": {"requests": {"cpu": "4", GPU: str(gpus)}, "limits": {GPU: str(gpus)}}}]}}}
        if min_available is not None:
            spec["minAvailable"] = min_available
        return spec
    spec = {"queue": QUEUE, "minAvailable": sum(t[1] for t in tasks), "schedulerName": "volcano",
            "tasks": [task(*t) for t in tasks]}
    if min_success is not None:
        spec["minSuccess"] = min_success
    if plugins:
        spec["plugins"] = plugins
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"namespace": NS, "name": name, "annotations": {}}, "spec": spec}


class KarmadaDivided(unittest.TestCase):
    def setUp(self):
        self.workdir = tempfile.mkdtemp(prefix="gantry-karmada-divided-")
        self.karmada = KarmadaFixture(self.workdir, ["--karmada-members", "--member-termination-ms", "100"])
        self.addCleanup(self.karmada.close)
        for name in MEMBERS:
            self.karmada.create(CLUSTERS, cluster_object(name, gpu_nodes=2))
        self.karmada.create("/apis/scheduling.volcano.sh/v1beta1/queues", MEMBER_QUEUE)
        self.gantry = KarmadaHub(self.karmada)
        self.addCleanup(self.gantry.close)
        self.gantry.wait_ready_clusters(len(MEMBERS))
        self.gantry.ctl("apply", "-f", "-", input_text=GANTRY_QUEUE)

    # ------------------------------------------------------------ helpers
    def submit(self, job):
        self.karmada.create(f"/apis/batch.volcano.sh/v1alpha1/namespaces/{NS}/jobs", job)
        self.karmada.create(f"/apis/work.karmada.io/v1alpha2/namespaces/{NS}/resourcebindings",
                            binding_object(job, divided=True))

    def bindings(self):
        return {b["spec"]["resource"]["name"]: b for b in self.karmada.bindings()}

    def member(self, cluster, name):
        status, body = self.karmada.request("GET", f"/fixture/members/{cluster}/{NS}/{name}")
        return body if status == 200 else None

    def policy(self, binding_name):
        status, body = self.karmada.request("GET", f"{POLICIES}/gantry-{binding_name}")
        return body if status == 200 else None

    def assert_member_got_its_part(self, name, part, template):
        """The member's copy is exactly the part: each task its share, minAvailable the part."""
        member = self.member(part["cluster"], name)
        self.assertFalse(member["appliedMessage"], f"{name} refused on {part['cluster']}")
        spec = member["workload"]["spec"]
        shares = [part["tasks"].get(t["name"], 0) for t in template["spec"]["tasks"]]
        self.assertEqual([t["replicas"] for t in spec["tasks"]], shares, f"{name} on {part['cluster']}")
        self.assertEqual(spec["minAvailable"], part["replicas"], f"{name} minAvailable on {part['cluster']}")
        for task in spec["tasks"]:
            self.assertLessEqual(task["minAvailable"], task["replicas"], f"{name} task {task['name']}")
        if "minSuccess" in template["spec"]:
            self.assertEqual(spec["minSuccess"], min(template["spec"]["minSuccess"], part["replicas"]))

    # ------------------------------------------------------------ tests
    def test_split_gangs_run_as_their_parts_and_every_job_completes(self):
        templates = {}
        for name, tasks, min_success in BATCH:
            templates[name] = volcano_job(name, tasks, min_success)
            self.submit(templates[name])
        splits, completed = set(), set()
        deadline = time.monotonic() + 90
        while len(completed) < len(BATCH):
            self.assertLess(time.monotonic(), deadline, f"completed {sorted(completed)} of {len(BATCH)}")
            progressed = False
            for name, binding in self.bindings().items():
                if name in completed or not released(binding):
                    continue
                parts = decision(binding)["parts"]
                members = [self.member(p["cluster"], name) for p in parts]
                if not all(m and m["workload"] is not None for m in members):
                    self.assertFalse([m["appliedMessage"] for m in members if m and m["appliedMessage"]],
                                     f"{name} refused")
                    continue
                for part in parts:
                    self.assert_member_got_its_part(name, part, templates[name])
                if len(parts) > 1:
                    splits.add(name)
                for part in parts:
                    self.karmada.fixture("POST", f"members/{part['cluster']}/{NS}/{name}/phase?value=Completed")
                completed.add(name)
                progressed = True
            if not progressed:
                time.sleep(0.05)  # poll interval, not synchronisation: the loop's condition is the state
        wait_until(lambda: all(j["phase"] == "Completed" for j in self.gantry.get("jobs")),
                   "every Gantry job Completed")
        must_split = {name for name, tasks, _ in BATCH if sum(t[1] * t[2] for t in tasks) > 16}
        self.assertTrue(must_split <= splits, f"not split: {sorted(must_split - splits)}")
        self.assertFalse([m for m in self.karmada.fixture("GET", "members")["items"] if m.get("appliedMessage")],
                         "a member refused a workload")
        # Each split went out with its OverridePolicy, Gantry's, for the dispatch released (it stays
        # while the binding does: owned by it, Kubernetes' garbage collector removes it).
        for name in splits:
            policy = self.policy(f"{name}-job")
            self.assertIsNotNone(policy, f"{name}'s OverridePolicy")
            self.assertEqual(policy["metadata"]["labels"]["app.kubernetes.io/managed-by"], "gantry")
            self.assertEqual(policy["metadata"]["labels"]["gantry.io/dispatch"],
                             decision(self.bindings()[name])["dispatchId"])

    def test_a_pytorch_job_too_big_for_one_member_is_never_split_and_says_why(self):
        job = volcano_job("ddp", [("worker", 6, 4, None)],
                          plugins={"pytorch": ["--master=worker", "--worker=worker", "--port=23456"]})
        self.submit(job)
        self.submit(volcano_job("after", [("worker", 6, 4, None)]))  # the same size, no plugin: splits
        wait_until(lambda: len((self.bindings()["after"]["spec"].get("clusters") or [])) > 1,
                   "the plugin-free job of the same size released as a split")
        described = wait_until(lambda: (text := self.gantry.ctl("describe", "job", f"{NS}.ddp-job").stdout)
                               and PYTORCH_REASON in text and text, "describe to show why ddp is not split")
        self.assertIn("gantry.io/split: never", described.replace("=", ": "))
        ddp = self.bindings()["ddp"]
        self.assertFalse(released(ddp), "the pytorch job was released")
        self.assertFalse(ddp["spec"].get("clusters"))
        self.assertEqual(self.gantry.job(f"{NS}.ddp-job")["phase"], "Pending")
        self.assertIsNone(self.policy("ddp-job"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
