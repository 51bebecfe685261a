"""Acceptance (Karmada mode): 40 suspended ResourceBindings of Volcano Jobs in two queues of weights
1:3, on 3 member clusters known only through a FIXTURE Karmada API server, are released by a real
gantry-hub in queue order (their decisions' dispatch ids), with spec.clusters that fit the
clusters' resource models, never above the small queue's capability; aggregatedStatus makes the jobs Running then Completed. Midway the fixture
compacts its history (every watch gets 410 Gone and re-lists) and answers patches with conflicts: no
decision is lost or written twice. Then a cluster without resource models: get clusters says its fit is
a summary."""

import os
import tempfile
import unittest

from karmada_harness import (BINDINGS, CLUSTERS, GPU, KarmadaFixture, KarmadaHub, cluster_object, decision, released,
                             submit_volcano_job, volcano_job, wait_until)

QUEUE = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: {name}
spec:
  weight: {weight}
  reclaimable: false
{extra}"""

CAPACITY = {"east": 16, "west": 16, "north": 8}  # GPUs: nodes of 8
GANG_GPUS = 8  # 2 replicas x 4 GPUs
SMALL_CAPABILITY = 16


class KarmadaRelease(unittest.TestCase):
    def setUp(self):
        self.workdir = tempfile.mkdtemp(prefix="gantry-karmada-")
        self.karmada = KarmadaFixture(self.workdir)
        self.addCleanup(self.karmada.close)
        for name, gpus in CAPACITY.items():
            self.karmada.create(CLUSTERS, cluster_object(name, gpus // 8))
        self.gantry = KarmadaHub(self.karmada)
        self.addCleanup(self.gantry.close)
        self.gantry.wait_ready_clusters(3)
        self.gantry.ctl("apply", "-f", "-", input_text=QUEUE.format(
            name="small", weight=1, extra=f"  capability: {{{GPU}: {SMALL_CAPABILITY}}}\n"))
        self.gantry.ctl("apply", "-f", "-", input_text=QUEUE.format(name="large", weight=3, extra=""))

    def check_invariants(self, running):
        """What runs at once fits every cluster's models and the small queue's capability."""
        per_cluster = {name: 0 for name in CAPACITY}
        small = 0
        for binding in running:
            for part in binding["spec"]["clusters"]:
                per_cluster[part["name"]] += part["replicas"] * 4
            if binding["metadata"]["name"].startswith("small"):
                small += GANG_GPUS
        for name, used in per_cluster.items():
            self.assertLessEqual(used, CAPACITY[name], f"cluster {name} over its resource models")
        self.assertLessEqual(small, SMALL_CAPABILITY, "queue small above its capability")

    def test_forty_bindings_are_released_in_queue_order_and_complete(self):
        names = []
        for i in range(20):
            for queue in ("small", "large"):
                job = volcano_job("team-a", f"{queue}-{i:02d}", queue, replicas=2, gpus=4)
                names.append(submit_volcano_job(self.karmada, job)["metadata"]["name"])
        wait_until(lambda: len(self.gantry.get("jobs")) == 40, "every binding to become a Gantry job")

        # Per queue, each released binding's dispatch id (its gantry.io/decision): the hub numbers
        # dispatches in the order it decides them. The order the test *sees* releases in is not
        # that order: each binding's release is its own write, and a write that meets a conflict
        # is read and patched again (with the same decision) after later ones landed.
        released_ids = {"small": {}, "large": {}}
        seen_running, completed = set(), set()
        disturbed = False
        while len(completed) < 40:
            bindings = wait_until(lambda: self.progress(completed), "Gantry to release a binding", deadline_s=120)
            running = [b for b in bindings if released(b) and b["metadata"]["name"] not in completed]
            self.check_invariants(running)
            finishing = []
            for binding in running:
                name = binding["metadata"]["name"]
                if name in seen_running:
                    finishing.append(binding)
                    continue
                seen_running.add(name)
                released_ids[name.split("-")[0]][name] = int(decision(binding)["dispatchId"])
                self.karmada.set_status(binding, "Running")
                if len(seen_running) == 1:
                    self.assert_running_from_aggregated_status(f"team-a.{name}")
            if len(completed) >= 10 and not disturbed:
                # Before the completions that free capacity: the next release patches meet
                # conflicts (the test's own status writes are left out), and every watch re-lists.
                disturbed = True
                self.karmada.fixture("POST", "conflict-next-patches?count=3&path_contains=resourcebindings"
                                             "&path_excludes=/status")
                self.karmada.fixture("POST", "compact")
            for binding in finishing:
                self.karmada.set_status(binding, "Completed")
                completed.add(binding["metadata"]["name"])

        for queue, ids in released_ids.items():
            self.assertEqual(len(ids), 20)
            decided = sorted(ids, key=ids.get)
            self.assertEqual(decided, sorted(ids), f"queue {queue} decided out of submission order")
        wait_until(lambda: all(j["phase"] == "Completed" for j in self.gantry.get("jobs")),
                   "every job Completed from aggregatedStatus")
        self.assert_one_decision_per_binding()
        conflicts = [r for r in self.karmada.fixture("GET", "requests")
                     if r["method"] == "PATCH" and r["status"] == 409 and not r["path"].endswith("/status")]
        self.assertEqual(len(conflicts), 3, "the gateway's release patches met the injected conflicts")
        self.assertIn("changed under the patch (409)", self.gantry.log("hub"))
        lists = [r for r in self.karmada.fixture("GET", "requests")
                 if r["method"] == "GET" and r["path"] == BINDINGS and "watch" not in (r["query"] or "")]
        self.assertGreaterEqual(len(lists), 2, "the compaction's 410 made the binding watch re-list")
        self.assert_summary_fit_is_said()

    def assert_summary_fit_is_said(self):
        """A cluster without resource models is one summary node, an upper bound on what fits a
        node: get clusters says so, and leaves the modeled clusters as they were. Added after every
        job completed, so that nothing is placed on it."""
        self.karmada.create(CLUSTERS, cluster_object("south", 2, resource_models=False))
        self.gantry.wait_ready_clusters(4)
        plain = self.gantry.ctl("get", "clusters").stdout.splitlines()
        wide = self.gantry.ctl("get", "clusters", "-o", "wide").stdout.splitlines()
        rows = {line.split()[0]: line for line in plain[1:]}
        wide_rows = {line.split()[0]: line for line in wide[1:]}
        self.assertEqual(rows["south"].split()[1], "Ready,SummaryFit", plain)
        self.assertTrue(wide_rows["south"].endswith("   no node models: summary fit"), wide)
        self.assertTrue(wide[0].endswith("   FIT"), wide)
        for name in CAPACITY:
            self.assertEqual(rows[name].split()[1], "Ready", plain)
            self.assertTrue(wide_rows[name].endswith("   per-node"), wide)
        south = next(c for c in self.gantry.get("clusters") if c["name"] == "south")
        self.assertEqual((south["nodes"], south["fitNote"]), (1, "no node models: summary fit"))

    def assert_running_from_aggregated_status(self, job_name):
        job = wait_until(lambda: (j := self.gantry.job(job_name)) and j["tasks"] and j,
                         "the member workload's task counts to reach the job")
        self.assertEqual(job["phase"], "Running")
        self.assertEqual([(t["name"], t["running"]) for t in job["tasks"]], [("worker", 2)])

    def progress(self, completed):
        """The bindings, once one is released that the test has not completed yet."""
        bindings = self.karmada.bindings()
        for binding in bindings:
            name = binding["metadata"]["name"]
            if released(binding) and name not in completed:
                return bindings
        return None

    def assert_one_decision_per_binding(self):
        """Each binding was released by exactly one dispatch: its decision patch succeeded once."""
        releases = {}
        for request in self.karmada.fixture("GET", "requests"):
            body = request.get("body") or {}
            annotation = ((body.get("metadata") or {}).get("annotations") or {}).get("gantry.io/decision")
            if request["method"] == "PATCH" and annotation and request["status"] == 200:
                releases.setdefault(request["path"], []).append(annotation)
        self.assertEqual(len(releases), 40)
        for path, written in releases.items():
            self.assertEqual(len(written), 1, f"{path} released {len(written)} times")
        for binding in self.karmada.bindings():
            self.assertIsNotNone(decision(binding))


if __name__ == "__main__":
    unittest.main(verbosity=2)
