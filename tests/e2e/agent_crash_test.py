"""Acceptance (issue 28, "nothing runs twice"): `kill -9` of a process-executor
agent with 6 running gangs. Its runs outlive it under their supervisors:

- restarted after 1 s, the agent re-attaches to them and the hub takes them
  back: nothing starts a second time, and every job completes once;
- restarted after twice the lease, the supervisors have fenced the runs
  before the hub's lost grace placed the jobs again: the second copies never
  meet the first, and every job completes once.

Each replica holds an exclusive flock on a file of its own (job, index) while
it runs: a second copy that finds it held records an overlap."""

import os
import time
import unittest

from gantry_harness import Cluster, job_yaml, wait_until

LEASE_MS = 3000
LOST_GRACE_MS = 4500  # the lease plus its kill margin: agents fence after 3 s (protocol/lease_timing.hpp)
JOBS = 6
REPLICAS = 2


def replica_command(marks, job, release):
    """Locks marks/<job>-<index>.lock (or records an overlap), appends 'started'
    to its .starts, waits for `release`, then appends 'done' to its .done."""
    base = os.path.join(marks, f"{job}-$GANTRY_REPLICA_INDEX")
    script = (f"exec 9>>{base}.lock; "
              f"flock -n 9 || {{ echo {job}-$GANTRY_REPLICA_INDEX >> {marks}/overlaps; exit 3; }}; "
              f"echo started >> {base}.starts; "
              f"while [ ! -e {release} ]; do sleep 0.05; done; echo done >> {base}.done")
    return ["sh", "-c", script]


class AgentCrash(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster(heartbeat_ms=200, liveness=3, agent_lease_ms=LEASE_MS,
                              lost_grace_ms=LOST_GRACE_MS, hub_args=["--restart-backoff", "1s"])
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.marks = os.path.join(self.gantry.workdir, "marks")
        os.makedirs(self.marks)
        os.chmod(self.marks, 0o777)  # the replicas may run as nobody (--run-as)
        self.gantry.start_agent("crashy", "west.yaml", executor="process")
        self.gantry.start_agent("steady", "east.yaml", executor="process")
        self.gantry.wait_ready_clusters(2)

    # ------------------------------------------------------------ helpers
    def lines(self, name, suffix):
        path = os.path.join(self.marks, f"{name}.{suffix}")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return f.read().split()

    def overlaps(self):
        path = os.path.join(self.marks, "overlaps")
        return open(path).read().split() if os.path.exists(path) else []

    def replicas(self, jobs):
        return [f"{job}-{index}" for job in jobs for index in range(REPLICAS)]

    def start_gangs_on_crashy(self, prefix, release):
        """6 two-replica gangs, all running on crashy (steady is cordoned meanwhile)."""
        jobs = [f"{prefix}-{i}" for i in range(JOBS)]
        self.gantry.ctl("cordon", "cluster", "steady")
        for job in jobs:
            self.gantry.submit(job_yaml(job, [("w", REPLICAS, {"cpu": 1},
                                                replica_command(self.marks, job, release), None)],
                                        min_available=REPLICAS))
        wait_until(lambda: all(len(self.lines(r, "starts")) == 1 for r in self.replicas(jobs)),
                   f"every replica of the {prefix} gangs to start")
        for job in jobs:
            wait_until(lambda j=job: self.gantry.job(j)["phase"] == "Running", f"{job} to run")
            self.assertEqual(self.gantry.job(job)["clusters"], ["crashy"])
        self.gantry.ctl("uncordon", "cluster", "steady")
        return jobs

    def crash_and_restart_crashy(self, down_s):
        self.gantry.kill("agent-crashy")  # SIGKILL to the agent's process group
        time.sleep(down_s)  # the scenario: how long the agent stays down
        self.gantry.start_agent("crashy", "west.yaml", executor="process")

    def finish(self, jobs, release):
        open(release, "w").close()
        for job in jobs:
            wait_until(lambda j=job: self.gantry.job(j)["phase"] == "Completed", f"{job} to complete",
                       deadline_s=90)
        for replica in self.replicas(jobs):
            self.assertEqual(self.lines(replica, "done"), ["done"], f"{replica} completed once")
        self.assertEqual(self.overlaps(), [], "no replica ran twice at the same time")

    # ------------------------------------------------------------ the scenario
    def test_a_crashed_agent_neither_leaves_a_run_behind_nor_runs_it_twice(self):
        # Round 1: back within the lease: the runs are taken back, never restarted.
        release = os.path.join(self.marks, "release-quick")
        quick = self.start_gangs_on_crashy("quick", release)
        self.crash_and_restart_crashy(1.0)
        wait_until(lambda: "took back 12 replica(s)" in self.gantry.log("agent-crashy"),
                   "the restarted agent to take its runs back")
        self.gantry.wait_ready_clusters(2)
        for job in quick:
            self.assertEqual(self.gantry.job(job)["clusters"], ["crashy"])
        # The scenario, not a synchronisation: the runs go on for more than the
        # fence timeout (3 s here) under the restarted agent, whose echoed
        # heartbeats keep them.
        time.sleep(1.5 * LEASE_MS / 1000)
        self.assertNotIn("fenced", self.gantry.log("agent-crashy"))
        self.finish(quick, release)
        for replica in self.replicas(quick):
            self.assertEqual(self.lines(replica, "starts"), ["started"], f"{replica} started once")

        # Round 2: down for twice the lease: the supervisors fence the runs,
        # the hub places the jobs again after its lost grace.
        release = os.path.join(self.marks, "release-late")
        late = self.start_gangs_on_crashy("late", release)
        self.crash_and_restart_crashy(2 * LEASE_MS / 1000)
        wait_until(lambda: all(len(self.lines(r, "starts")) == 2 for r in self.replicas(late)),
                   "every gang to be placed again and start its second copy", deadline_s=90)
        self.finish(late, release)
        for job in late:
            self.assertIn("fenced", self.gantry.replica_output("crashy", job),
                          f"{job}'s first copy was fenced by its supervisor")


if __name__ == "__main__":
    unittest.main(verbosity=2)
