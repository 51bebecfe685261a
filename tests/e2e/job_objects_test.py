"""Acceptance for job objects (issue 12), real processes only: a hub, a process
agent and gantryctl on loopback.

- A job with only metadata.generateName: `submit` prints the name the hub
  made (prefix + 5 characters) and `get jobs` lists it; it runs under it.
- `delete job` of a running job stops its replica; once stopped the job is
  gone from get / describe and a job of the same name is accepted and runs.
- A job with spec.ttlSecondsAfterFinished: 1 disappears after it completes.

The replicas run `sh -c` with a per-test marker in their argv, so that pgrep
finds exactly this test's processes."""

import re
import subprocess
import unittest
import uuid

from gantry_harness import Cluster, job_yaml, processes_with, wait_until

FINISHED = ("Completed", "Failed", "Aborted", "Terminated")


def with_generate_name(yaml_text, name, prefix):
    return yaml_text.replace(f"  name: {name}\n", f"  generateName: {prefix}\n", 1)


def with_ttl(yaml_text, seconds):
    return yaml_text.replace("spec:\n", f"spec:\n  ttlSecondsAfterFinished: {seconds}\n", 1)


class JobObjects(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.gantry.start_agent("pool", "gpu8.yaml", executor="process")
        self.gantry.wait_ready_clusters(1)
        self.marker = f"gantry-e2e-{uuid.uuid4().hex}"
        self.addCleanup(lambda: subprocess.run(["pkill", "-KILL", "-f", self.marker]))

    def quick_job(self, name):
        return job_yaml(name, [("worker", 1, {"cpu": 1}, ["true"], None)])

    def sleeper_job(self, name):
        # A list, not one command: sh must not exec sleep and lose the marker.
        return job_yaml(name, [("worker", 1, {"cpu": 1}, ["sh", "-c", "sleep 300; true", self.marker],
                                None)])

    def wait_finished(self, name):
        return wait_until(lambda: (j := self.gantry.find_job(name)) and j["phase"] in FINISHED and j,
                          f"{name} to end")

    def test_generate_name_submit_prints_a_name_that_get_jobs_lists(self):
        made = self.gantry.submit(with_generate_name(self.quick_job("unused"), "unused", "sweep-"))
        self.assertRegex(made, r"^sweep-[a-z0-9]{5}$")
        other = self.gantry.submit(with_generate_name(self.quick_job("unused"), "unused", "sweep-"))
        self.assertRegex(other, r"^sweep-[a-z0-9]{5}$")
        self.assertNotEqual(made, other)
        names = [job["name"] for job in self.gantry.get("jobs")]
        self.assertIn(made, names)
        self.assertIn(other, names)
        self.assertEqual(self.wait_finished(made)["phase"], "Completed", self.gantry.log("agent-pool"))
        self.assertEqual(self.gantry.ctl("describe", "job", made, check=False).returncode, 0)

    def test_delete_job_stops_it_then_the_name_can_be_used_again(self):
        self.assertEqual(self.gantry.submit(self.sleeper_job("reused")), "reused")
        wait_until(lambda: processes_with(self.marker), "the replica's process")
        refused = self.gantry.ctl("submit", "-f", "-", check=False, input_text=self.quick_job("reused"))
        self.assertNotEqual(refused.returncode, 0, "the name is taken while the job exists")

        deleted = self.gantry.ctl("delete", "job", "reused")
        self.assertEqual(deleted.stdout.strip(), "job/reused deleted")
        wait_until(lambda: self.gantry.find_job("reused") is None, "reused to be forgotten")
        self.assertEqual(processes_with(self.marker), [], "stopped before it was forgotten")
        described = self.gantry.ctl("describe", "job", "reused", check=False)
        self.assertNotEqual(described.returncode, 0)
        self.assertIn('job "reused" not found', described.stderr)

        self.assertEqual(self.gantry.submit(self.quick_job("reused")), "reused")
        self.assertEqual(self.wait_finished("reused")["phase"], "Completed", self.gantry.log("agent-pool"))

        unknown = self.gantry.ctl("delete", "job", "nobody", check=False)
        self.assertNotEqual(unknown.returncode, 0)
        self.assertIn('job "nobody" not found', unknown.stderr)

    def test_a_job_with_ttl_disappears_after_it_completes(self):
        self.gantry.submit(with_ttl(self.quick_job("brief"), 1))
        self.gantry.submit(self.quick_job("kept"))
        # It may already be gone at the first look; if seen ended, it Completed.
        ended = wait_until(lambda: (j := self.gantry.find_job("brief")) is None and {"phase": "gone"}
                           or j["phase"] in FINISHED and j, "brief to end")
        self.assertIn(ended["phase"], ("Completed", "gone"), self.gantry.log("agent-pool"))
        wait_until(lambda: self.gantry.find_job("brief") is None, "brief to be forgotten", deadline_s=30)
        self.assertEqual(self.wait_finished("kept")["phase"], "Completed")
        self.assertIsNotNone(self.gantry.find_job("kept"), "no ttl: kept until deleted")

if __name__ == "__main__":
    unittest.main()
