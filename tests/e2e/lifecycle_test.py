"""Acceptance for Volcano lifecycle policies (issue 12), real processes only:
a hub (restart backoff 200ms), a process agent and gantryctl on loopback.

- PodFailed -> RestartJob: the first attempt fails (a marker file is absent:
  it is created and the replica exits 1), the second succeeds: the job ends
  Completed with 1 retry, and describe names the event and the action.
- maxRetry: 2 with a replica that always fails: the job ends Failed after 2
  retries.
- TaskCompleted -> CompleteJob: a master that exits 0 and a worker that would
  sleep ten minutes: the job ends Completed and the worker's process is gone.

Replicas run `sh -c` with a per-test marker in their argv, so that pgrep finds
exactly this test's processes."""

import os
import re
import subprocess
import tempfile
import unittest
import uuid

from gantry_harness import Cluster, job_yaml, processes_with, wait_until

TERMINAL = ("Completed", "Failed", "Aborted", "Terminated")


def with_spec_fields(yaml_text, *lines):
    """Appends fields to the job's spec (job_yaml ends inside spec.tasks)."""
    return yaml_text + "".join(f"  {line}\n" for line in lines)


class Lifecycle(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster(hub_args=("--restart-backoff", "200ms"))
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.gantry.start_agent("pool", "gpu8.yaml", executor="process")
        self.gantry.wait_ready_clusters(1)
        self.marker = f"gantry-e2e-{uuid.uuid4().hex}"
        self.addCleanup(lambda: subprocess.run(["pkill", "-KILL", "-f", self.marker]))
        self.scratch = tempfile.TemporaryDirectory(prefix="gantry-lifecycle-")
        os.chmod(self.scratch.name, 0o777)  # the replicas run as nobody (--run-as) and write here
        self.addCleanup(self.scratch.cleanup)

    def ended(self, name):
        return wait_until(lambda: (j := self.gantry.job(name))["phase"] in TERMINAL and j,
                          f"{name} to end")

    def describe(self, name):
        return self.gantry.ctl("describe", "job", name).stdout

    def test_pod_failed_restart_job_runs_the_gang_again_until_it_succeeds(self):
        marker_file = os.path.join(self.scratch.name, "first-attempt-done")
        # Absent: create it and fail; present: succeed.
        script = 'if [ -e "$0" ]; then exit 0; fi; touch "$0"; exit 1'
        self.gantry.submit(with_spec_fields(
            job_yaml("retry-once", [("worker", 1, {"cpu": 1}, ["sh", "-c", script, marker_file], None)]),
            "policies:", "  - event: PodFailed", "    action: RestartJob"))
        job = self.ended("retry-once")
        self.assertEqual(job["phase"], "Completed", job["reason"] + self.gantry.log("hub"))
        self.assertEqual(job["retries"], 1)
        self.assertEqual(job["lastEvent"]["event"], "PodFailed")
        self.assertEqual(job["lastEvent"]["task"], "worker")
        self.assertEqual(job["lastEvent"]["exitCode"], 1)
        self.assertEqual(job["lastAction"], "RestartJob")
        self.assertTrue(os.path.exists(marker_file))
        described = self.describe("retry-once")
        self.assertRegex(described, r"Retries:\s+1/3")
        self.assertRegex(described, r"Last Event:\s+PodFailed \(task worker, replica 0, exit code 1\)")
        self.assertRegex(described, r"Last Action:\s+RestartJob")
        self.assertIn("RestartJob (retry 1 of 3)", described, "the Events list names the action")

    def test_max_retry_reached_fails_the_job(self):
        self.gantry.submit(with_spec_fields(
            job_yaml("always-fails", [("worker", 1, {"cpu": 1}, ["sh", "-c", "exit 1"], None)]),
            "maxRetry: 2", "policies:", "  - event: PodFailed", "    action: RestartJob"))
        job = self.ended("always-fails")
        self.assertEqual(job["phase"], "Failed", job["reason"])
        self.assertEqual(job["retries"], 2)
        self.assertIn("failed after 2 retries", job["reason"])
        self.assertRegex(self.describe("always-fails"), r"Retries:\s+2/2")

    def test_task_completed_complete_job_stops_the_workers(self):
        sleeper = ["sh", "-c", "sleep 600; true", self.marker]
        self.gantry.submit(with_spec_fields(
            job_yaml("master-worker", [("master", 1, {"cpu": 1}, ["sh", "-c", "sleep 1; exit 0"], None),
                                       ("worker", 1, {"cpu": 1}, sleeper, None)]),
            "policies:", "  - event: TaskCompleted", "    action: CompleteJob"))
        wait_until(lambda: processes_with(self.marker), "the worker's process")
        job = self.ended("master-worker")
        self.assertEqual(job["phase"], "Completed", job["reason"] + self.gantry.log("hub"))
        self.assertEqual(job["lastEvent"]["event"], "TaskCompleted")
        self.assertEqual(job["lastEvent"]["task"], "master")
        self.assertEqual(job["lastAction"], "CompleteJob")
        # The agent reports the stop only once the worker's process group is reaped.
        self.assertEqual(processes_with(self.marker), [])
        self.assertTrue(re.search(r"TaskCompleted \(task master\): CompleteJob", self.describe("master-worker")))


if __name__ == "__main__":
    unittest.main()
