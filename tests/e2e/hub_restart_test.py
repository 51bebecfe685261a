"""Acceptance: the hub process is killed while jobs run on a real agent (process
executor) and a new hub starts on the same state. A job still running is taken
back as running, not started a second time; a job that finished while no hub
was there ends with the result its agent reports, and is not run again."""

import os
import unittest

from gantry_harness import Cluster, job_yaml, wait_until, waiting_command


class HubRestart(unittest.TestCase):
    def setUp(self):
        # A long grace period: the agents come back well within it, and nothing
        # here waits for it to end.
        self.gantry = Cluster(hub_args=["--recovery-grace-ms", "120000"])
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.marks = os.path.join(self.gantry.workdir, "marks")
        os.makedirs(self.marks)
        os.chmod(self.marks, 0o777)  # the replicas run as nobody (--run-as) and write here
        self.gantry.start_agent("east", "east.yaml", executor="process")
        self.gantry.wait_ready_clusters(1)

    def mark(self, name, suffix):
        return os.path.join(self.marks, f"{name}.{suffix}")

    def starts(self, name):
        with open(self.mark(name, "starts")) as f:
            return f.read().split()

    def test_running_job_is_taken_back_and_a_job_that_ended_meanwhile_is_not_run_again(self):
        for name in ("survivor", "finisher"):
            self.gantry.submit(job_yaml(name, [("worker", 1, {"cpu": 1}, waiting_command(self.marks, name), None)]))
        for name in ("survivor", "finisher"):
            wait_until(lambda n=name: os.path.exists(self.mark(n, "starts")), f"{name} to start")
            wait_until(lambda n=name: self.gantry.job(n)["phase"] == "Running", f"{name} to run")

        self.gantry.kill("hub")
        open(self.mark("finisher", "release"), "w").close()  # it ends while no hub listens
        wait_until(lambda: os.path.exists(self.mark("finisher", "done")), "finisher to end")
        self.gantry.restart_hub()

        finisher = wait_until(lambda: (j := self.gantry.job("finisher"))["phase"] == "Completed" and j,
                              "finisher to be Completed from the agent's report")
        self.assertEqual(finisher["clusters"], ["east"])
        survivor = wait_until(lambda: (j := self.gantry.job("survivor"))["phase"] == "Running" and j,
                              "survivor to be taken back as running")
        self.assertEqual(survivor["clusters"], ["east"])
        described = self.gantry.ctl("describe", "job", "survivor").stdout
        self.assertIn("still running on east from before the hub restarted", described)

        open(self.mark("survivor", "release"), "w").close()
        wait_until(lambda: self.gantry.job("survivor")["phase"] == "Completed", "survivor to complete")
        self.assertEqual(self.starts("survivor"), ["started"], "survivor ran once")
        self.assertEqual(self.starts("finisher"), ["started"], "finisher ran once")


if __name__ == "__main__":
    unittest.main(verbosity=2)
