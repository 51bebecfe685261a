"""Acceptance (issue 12): a PriorityClass applied with gantryctl is used for
preemption; one with preemptionPolicy Never waits instead."""

import unittest

from gantry_harness import Cluster, job_yaml, wait_until

CLASS = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: {name}
value: 100000
preemptionPolicy: {policy}
description: e2e
"""


def gang(name, priority_class=None):
    yaml = job_yaml(name, [("w", 1, {"cpu": 4, "nvidia.com/gpu": 8}, None, None)],
                    annotations={"gantry.io/sim-duration": "3600"})
    if priority_class:
        yaml = yaml.replace("spec:\n", f"spec:\n  priorityClassName: {priority_class}\n", 1)
    return yaml


class PriorityClasses(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)
        self.gantry.start_agent("pool", "gpu8.yaml")  # 2 nodes x 8 GPUs
        self.gantry.wait_ready_clusters(1)

    def phases(self):
        return {j["name"]: j for j in self.gantry.get("jobs")}

    def test_applied_class_preempts_and_never_does_not(self):
        for name, policy in (("urgent", "PreemptLowerPriority"), ("polite", "Never")):
            self.gantry.ctl("apply", "-f", "-", input_text=CLASS.format(name=name, policy=policy))
        listed = {c["name"]: c for c in self.gantry.get("priorityclasses")}
        self.assertEqual(listed["polite"]["preemptionPolicy"], "Never")
        self.assertIn("PREEMPTION-POLICY", self.gantry.ctl("get", "priorityclasses").stdout)

        low = [self.gantry.submit(gang(f"low-{i}", "low-priority")) for i in range(2)]
        wait_until(lambda: all(self.phases()[n]["phase"] == "Running" for n in low), "the low jobs to fill the pool")

        self.gantry.submit(gang("urgent-job", "urgent"))
        wait_until(lambda: self.phases()["urgent-job"]["phase"] == "Running", "the urgent job to preempt")
        # At least one: the agent may refuse the first Prepare while the
        # evicted gang is still stopping, and the room goes back to it; then
        # an evicted low gang may be pending a moment before it runs again.
        jobs = wait_until(lambda: (j := self.phases()) and sum(
            j[n]["phase"] == "Running" for n in low) == 1 and j,
            "the pool to hold the urgent job and one low gang")
        self.assertEqual(jobs["urgent-job"]["phase"], "Running")
        self.assertGreaterEqual(sum(jobs[n]["requeues"] for n in low), 1, "a low gang made room")
        running_low = [n for n in low if jobs[n]["phase"] == "Running"]
        # The evicted gang's events name the job that took its place, within the queue.
        evicted = next(n for n in low if jobs[n]["requeues"] > 0)
        self.assertRegex(self.gantry.ctl("describe", "job", evicted).stdout,
                         r"evicted from \S+: preempted by job urgent-job \(priority -?\d+ > -?\d+\); requeued")

        # A higher class with preemptionPolicy Never waits for room instead of
        # evicting the low gang: once a pass has looked at it, it is still
        # Pending and the low gang still runs.
        requeues_before = sum(jobs[n]["requeues"] for n in low)
        self.gantry.submit(gang("polite-job", "polite"))
        wait_until(lambda: self.phases()["polite-job"]["reason"] not in ("", "waiting for the next scheduling pass"),
                   "a pass to consider the polite job")
        jobs = self.phases()
        self.assertEqual(jobs["polite-job"]["phase"], "Pending", "Never: it evicts no one")
        self.assertEqual(jobs[running_low[0]]["phase"], "Running")
        self.assertEqual(sum(jobs[n]["requeues"] for n in low), requeues_before)

        self.gantry.ctl("delete", "priorityclass", "polite")
        refused = self.gantry.ctl("submit", "-f", "-", input_text=gang("late", "polite"), check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("spec.priorityClassName", refused.stdout + refused.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
