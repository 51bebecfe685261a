"""Acceptance for backfill with time limits (issue 13), real processes only: a
hub, a sim-executor agent with a 16-GPU pool (two 8-GPU nodes) and gantryctl.

Eight 1-GPU fillers run with 10 s limits (they would run for ten minutes: the
agent ends them at their limits). A 16-GPU gang then waits for both nodes and
gets a planned start on both. Short 1-GPU jobs with 2 s limits end before that
start, so they backfill onto the free GPUs; long ones with 60 s limits would
delay the gang, so they start only after it. Every order is read from the hub's
own timestamps (started / finished), not from the test's clock.

The fillers' ends reach the hub as completions and as usage reports that no
longer count them, in either order: between the two the gang must keep its
plan and its nodes (the race this test found, see BackfillTest.
EndsAndUsageReportsInEitherOrderKeepTheReservationsNodesHeld)."""

import unittest

from gantry_harness import Cluster, job_yaml, wait_until

FILLERS = [f"filler-{i}" for i in range(8)]
SHORTS = [f"short-{i}" for i in range(4)]
LONGS = [f"long-{i}" for i in range(4)]
ENDED = ("Completed", "Failed", "Aborted")


def one_gpu_job(name, limit, sim_seconds):
    return job_yaml(name, [("worker", 1, {"nvidia.com/gpu": 1, "cpu": 1}, None, None)],
                    annotations={"gantry.io/time-limit": limit, "gantry.io/sim-duration": sim_seconds})


class Backfill(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.gantry.start_agent("gpu8", "gpu8.yaml", executor="sim")
        self.gantry.wait_ready_clusters(1)

    def jobs(self):
        return {job["name"]: job for job in self.gantry.get("jobs")}

    def wait_phase(self, names, phases, what):
        return wait_until(lambda: (all_jobs := self.jobs()) and all(
            all_jobs.get(name, {}).get("phase") in phases for name in names) and all_jobs, what)

    def test_short_jobs_backfill_and_long_ones_wait_for_the_reserved_gang(self):
        for name in FILLERS:
            self.gantry.submit(one_gpu_job(name, "10s", "600"))
        self.wait_phase(FILLERS, ("Running",), "the fillers to run")

        self.gantry.submit(job_yaml("gang", [("worker", 2, {"nvidia.com/gpu": 8, "cpu": 8}, None, None)],
                                    min_available=2, annotations={"gantry.io/sim-duration": "2"}))
        planned = wait_until(lambda: (job := self.gantry.job("gang")).get("plannedStart") and job,
                             "the gang's planned start")
        self.assertEqual(planned["phase"], "Pending")
        self.assertEqual(planned["plannedCluster"], "gpu8")
        self.assertEqual(sorted(planned["plannedNodes"]), ["gpu8-h100-0", "gpu8-h100-1"])

        for name in SHORTS:
            self.gantry.submit(one_gpu_job(name, "2s", "1"))
        for name in LONGS:
            self.gantry.submit(one_gpu_job(name, "60s", "2"))
        jobs = self.wait_phase(["gang"] + LONGS, ENDED, "the gang and the long jobs to end")
        log = self.gantry.log("hub")

        gang = jobs["gang"]
        self.assertEqual(gang["phase"], "Completed", log)
        for name in FILLERS:
            self.assertEqual(jobs[name]["phase"], "Failed", f"{name} ends at its limit")
            self.assertIn("time limit", jobs[name]["reason"])
            self.assertLessEqual(jobs[name]["finished"], gang["started"], f"{name} made room for the gang")
        for name in SHORTS:
            self.assertEqual(jobs[name]["phase"], "Completed", name)
            self.assertLess(jobs[name]["started"], gang["started"], f"{name} backfilled ahead of the gang")
        for name in LONGS:
            self.assertEqual(jobs[name]["phase"], "Completed", name)
            self.assertGreaterEqual(jobs[name]["started"], gang["finished"],
                                    f"{name} would have delayed the gang: it waits for it\n{log}")


if __name__ == "__main__":
    unittest.main()
