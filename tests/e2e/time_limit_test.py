"""Acceptance for job time limits (issue 13), real processes only: a hub, a
process agent and gantryctl on loopback.

- A job annotated gantry.io/time-limit: 2s whose replica would sleep for five
  minutes is stopped by its agent at the limit: it ends Failed, describe names
  the time limit, and its process is gone.
- A job asking more than its queue's gantry.io/max-time-limit is refused at
  submit, naming gantry.io/time-limit; one within it is accepted with its limit.

The replica runs `sh -c` with a per-test marker in its argv, so that pgrep finds
exactly this test's process."""

import subprocess
import unittest
import uuid

from gantry_harness import Cluster, job_yaml, processes_with, wait_until

CAPPED_QUEUE = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: capped
  annotations:
    gantry.io/default-time-limit: 10m
    gantry.io/max-time-limit: 1h
"""


class TimeLimit(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.gantry.start_agent("pool", "gpu8.yaml", executor="process")
        self.gantry.wait_ready_clusters(1)
        self.marker = f"gantry-e2e-{uuid.uuid4().hex}"
        self.addCleanup(lambda: subprocess.run(["pkill", "-KILL", "-f", self.marker]))

    def describe(self, name):
        return self.gantry.ctl("describe", "job", name).stdout

    def test_a_job_past_its_limit_is_stopped_and_fails(self):
        # A list, not one command: sh must not exec sleep and lose the marker.
        sleeper = ["sh", "-c", "sleep 300; true", self.marker]
        self.gantry.submit(job_yaml("overrun", [("worker", 1, {"cpu": 1}, sleeper, None)],
                                    annotations={"gantry.io/time-limit": "2s"}))
        wait_until(lambda: processes_with(self.marker), "the replica's process")
        self.assertEqual(self.gantry.job("overrun")["timeLimit"], "2s")

        job = wait_until(lambda: (j := self.gantry.job("overrun"))["phase"] in ("Completed", "Failed", "Aborted")
                         and j, "overrun to end")
        self.assertEqual(job["phase"], "Failed", self.gantry.log("agent-pool"))
        self.assertIn("time limit (2s)", job["reason"])
        described = self.describe("overrun")
        self.assertIn("Phase:           Failed", described)
        self.assertIn("Time Limit:      2s", described)
        self.assertIn("time limit (2s)", described)
        # The agent reports the end only once the replica's process group is reaped.
        self.assertEqual(processes_with(self.marker), [])

    def test_a_job_over_its_queues_maximum_is_refused_at_submit(self):
        self.gantry.ctl("apply", "-f", "-", input_text=CAPPED_QUEUE)
        refused = self.gantry.ctl("submit", "-f", "-", check=False, input_text=job_yaml(
            "greedy", [("worker", 1, {"cpu": 1}, ["true"], None)], queue="capped",
            annotations={"gantry.io/time-limit": "2h"}))
        self.assertNotEqual(refused.returncode, 0, refused.stdout)
        self.assertIn("metadata.annotations.gantry.io/time-limit", refused.stderr)
        self.assertIn("at most 1h", refused.stderr)

        self.gantry.submit(job_yaml("modest", [("worker", 1, {"cpu": 1}, ["true"], None)], queue="capped"))
        self.assertEqual(self.gantry.job("modest")["timeLimit"], "10m", "the queue's default")
        done = wait_until(lambda: (j := self.gantry.job("modest"))["phase"] in ("Completed", "Failed") and j,
                          "modest to end")
        self.assertEqual(done["phase"], "Completed", done["reason"])


if __name__ == "__main__":
    unittest.main()
