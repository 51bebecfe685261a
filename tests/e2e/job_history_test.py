"""Acceptance (issue 28, history): ended jobs stay listed and described, with
their placement, events and exit reasons, across hub restarts (kill -9), until
`gantryctl delete job`, their ttlSecondsAfterFinished or the hub's
--keep-finished forgets them; `get jobs --phase/--since` filter them and
`get usage` sums each queue's use. Real hub, process agent and gantryctl."""

import json
import os
import re
import unittest

from gantry_harness import Cluster, job_yaml, wait_until

ENDED = ("Completed", "Failed")


def with_ttl(yaml_text, seconds):
    return yaml_text.replace("spec:\n", f"spec:\n  ttlSecondsAfterFinished: {seconds}\n", 1)


def without_ages(describe):
    """describe's times with their ages ("(5s ago)"): the ages move on while the hub restarts,
    which takes more than a second on a loaded machine; the times themselves must not change."""
    return re.sub(r"\((\w+) ago\)", "(… ago)", describe)


class JobHistory(unittest.TestCase):
    def store_args(self):
        """The hub's --store: none here, gantry.db in its state directory."""
        return []

    def start(self, hub_args=()):
        gantry = Cluster(hub_args=[*hub_args, *self.store_args()])
        self.addCleanup(gantry.close)
        gantry.start_agent("east", "east.yaml", executor="process")
        gantry.wait_ready_clusters(1)
        return gantry

    def run_to_end(self, gantry, jobs):
        """Submits (name, command, extra yaml edit) jobs and waits until each has ended."""
        for name, command, edit in jobs:
            text = job_yaml(name, [("worker", 1, {"cpu": 1, "nvidia.com/gpu": 1}, command, None)])
            gantry.submit(edit(text) if edit else text)
        for name, _, _ in jobs:
            wait_until(lambda n=name: gantry.job(n)["phase"] in ENDED, f"{name} to end")

    def phases(self, gantry, *args):
        listed = json.loads(gantry.ctl("get", "jobs", *args, "-o", "json").stdout)
        return {job["name"]: job["phase"] for job in listed}

    def test_ended_jobs_outlive_restarts_until_deleted(self):
        gantry = self.start()
        self.run_to_end(gantry, [("fine", ["true"], None), ("broken", ["sh", "-c", "exit 3"], None)])
        before = gantry.ctl("describe", "job", "broken").stdout

        gantry.restart_hub()  # kill -9, then a new hub on the same state
        gantry.wait_ready_clusters(1)
        self.assertEqual(self.phases(gantry), {"fine": "Completed", "broken": "Failed"})
        self.assertEqual(gantry.job("fine")["clusters"], ["east"])
        after = gantry.ctl("describe", "job", "broken").stdout
        self.assertEqual(without_ages(after), without_ages(before),
                         "describe shows the same after the restart")
        self.assertIn("exit code 3", after)
        self.assertIn("east", after)

        self.assertEqual(self.phases(gantry, "--phase", "failed"), {"broken": "Failed"})
        self.assertEqual(set(self.phases(gantry, "--since", "1h")), {"fine", "broken"})
        usage = json.loads(gantry.ctl("get", "usage", "--since", "7d", "-o", "json").stdout)
        self.assertEqual([(q["queue"], q["jobs"]) for q in usage], [("default", 2)])

        self.assertIn("job/fine deleted", gantry.ctl("delete", "job", "fine").stdout)
        gantry.restart_hub()
        gantry.wait_ready_clusters(1)
        self.assertEqual(self.phases(gantry), {"broken": "Failed"})
        missing = gantry.ctl("describe", "job", "fine", check=False)
        self.assertNotEqual(missing.returncode, 0)
        self.assertIn('job "fine" not found', missing.stdout + missing.stderr)

    def test_a_ttl_that_runs_out_after_a_restart_forgets_the_job(self):
        gantry = self.start()
        self.run_to_end(gantry, [("brief", ["true"], lambda text: with_ttl(text, 2)),
                                 ("kept", ["true"], None)])
        gantry.restart_hub()
        wait_until(lambda: "brief" not in self.phases(gantry), "brief's ttl to forget it", deadline_s=30)
        self.assertEqual(self.phases(gantry), {"kept": "Completed"})

    def test_keep_finished_bounds_how_long_ended_jobs_are_listed(self):
        gantry = self.start(hub_args=["--keep-finished", "2s"])
        self.run_to_end(gantry, [("short-lived", ["true"], None)])
        wait_until(lambda: "short-lived" not in self.phases(gantry), "--keep-finished to forget it",
                   deadline_s=30)
        gantry.restart_hub()
        self.assertEqual(self.phases(gantry), {})


if __name__ == "__main__":
    unittest.main()
