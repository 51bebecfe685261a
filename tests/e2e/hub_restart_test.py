"""Acceptance: the hub process is killed while jobs run on a real agent (process
executor) and a new hub starts on the same state. A job still running is taken
back as running, not started a second time; a job that finished while no hub
was there ends with the result its agent reports, and is not run again; a run
its agent fenced while the hub was away longer than the fence timeout is an
eviction: the job runs again, it did not fail (issue 28)."""

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


class HubAwayPastTheFence(unittest.TestCase):
    def test_a_run_fenced_while_the_hub_was_away_runs_again_instead_of_failing(self):
        gantry = Cluster()  # the default recovery grace: the job is placed again soon
        self.addCleanup(gantry.close)
        marks = os.path.join(gantry.workdir, "marks")
        os.makedirs(marks)
        os.chmod(marks, 0o777)
        gantry.start_agent("east", "east.yaml", executor="process")
        gantry.wait_ready_clusters(1)
        gantry.submit(job_yaml("outlived", [("worker", 1, {"cpu": 1}, waiting_command(marks, "outlived"), None)]))
        wait_until(lambda: gantry.job("outlived")["phase"] == "Running", "outlived to run")

        gantry.kill("hub")
        wait_until(lambda: "stopping 1 running dispatch(es)" in gantry.log("agent-east"),
                   "the agent to fence its run while no hub answers")
        gantry.restart_hub()
        def starts():
            with open(os.path.join(marks, "outlived.starts")) as f:
                return f.read().split()

        wait_until(lambda: gantry.job("outlived")["phase"] == "Running" and starts() == ["started", "started"],
                   "outlived to run again")
        # Its end comes in the agent's Hello ("... fenced while the hub was away"), or, where the
        # agent was still stopping the replica when it said Hello (a slow build), as a status
        # of the run the hub took back ("... fenced: <why>"): either way an eviction.
        described = gantry.ctl("describe", "job", "outlived").stdout
        self.assertIn("requeued: its run on east was fenced", described)
        self.assertNotIn("Failed", described)
        open(os.path.join(marks, "outlived.release"), "w").close()
        wait_until(lambda: gantry.job("outlived")["phase"] == "Completed", "outlived to complete")


if __name__ == "__main__":
    unittest.main(verbosity=2)
