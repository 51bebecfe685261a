"""Acceptance (issue 28, "nothing acknowledged is lost, nothing runs twice"): a
load generator submits jobs through the admin socket to a hub with 5 member
clusters (real process-executor agents) while the hub is killed with kill -9
at random moments, at least 5 times, and restarted on the same state.
Afterwards every acknowledged job exists exactly once, reached Completed and
stays listed; none ran twice (at the same time or one after the other): each
replica holds an exclusive flock on a file of its own while it runs, and
appends to its run log once.

GANTRY_CRASH_JOBS sets the number of jobs (default 5000; 500 under ASan), GANTRY_CRASH_SEED
the random kill moments (printed, so a failure can be replayed)."""

import json
import os
import random
import subprocess
import threading
import time
import unittest

from gantry_harness import BIN_DIR, SOURCE_DIR, Cluster, job_yaml, wait_until

# Under the sanitizers (the suite's second half sets ASAN_OPTIONS) the Debug
# agents and their supervisors run several times slower: fewer jobs there.
SANITIZED = "ASAN_OPTIONS" in os.environ
JOBS = int(os.environ.get("GANTRY_CRASH_JOBS", "500" if SANITIZED else "5000"))
CLUSTERS = [f"crash-{i}" for i in range(5)]
BATCH = 100  # jobs per gantryctl submit (one file, one document each)
KILLS = 5
MAX_KILLS = 12


def job_command(marks, name):
    """Locks marks/<name>.lock or records an overlap; logs its run; ends."""
    base = os.path.join(marks, name)
    script = (f"exec 9>>{base}.lock; flock -n 9 || {{ echo {name} >> {marks}/overlaps; exit 3; }}; "
              f"echo run >> {base}.runs; sleep 0.2")
    return ["sh", "-c", script]


class Submitter(threading.Thread):
    """Submits numbered jobs in batches until `total` were tried; keeps the names
    the hub acknowledged (the names gantryctl printed)."""

    def __init__(self, gantry, marks, total):
        super().__init__(daemon=True)
        self.gantry, self.marks, self.total = gantry, marks, total
        self.acknowledged = []
        self.failures = 0

    def run(self):
        for start in range(0, self.total, BATCH):
            names = [f"j{i:05d}" for i in range(start, min(start + BATCH, self.total))]
            text = "---\n".join(
                job_yaml(name, [("worker", 1, {"cpu": 1}, job_command(self.marks, name), None)])
                for name in names)
            result = subprocess.run(
                [os.path.join(BIN_DIR, "gantryctl"), "--hub", self.gantry.admin_endpoint,
                 "--timeout", "2s", "submit", "-f", "-"],
                input=text, capture_output=True, text=True, timeout=600,
                env={**os.environ, **self.gantry.keys.ctl_env()})
            self.acknowledged += result.stdout.split()
            if result.returncode != 0:
                self.failures += 1


def assert_completed_once(test, gantry, marks, acknowledged):
    """Waits until every acknowledged job completed; asserts that every listed job
    completed, is listed once, and ran once (its run log, its lock). Returns the
    listed jobs' phases by name."""
    def all_completed():
        # What is checked is exactly once, not how fast: on a box loaded by
        # the replicas (and, in CI, by other tests) an answer may take longer
        # than gantryctl's default 5 s, so it gets a bound of a hung hub.
        jobs = json.loads(gantry.ctl("--timeout", "60s", "get", "jobs", "-o", "json").stdout)
        phases = {}
        for job in jobs:
            test.assertNotIn(job["name"], phases, f"{job['name']} is listed twice")
            phases[job["name"]] = job["phase"]
        failed = {name: phase for name, phase in phases.items() if phase in ("Failed", "Aborted")}
        test.assertEqual(failed, {}, "jobs that did not complete")
        return all(phases.get(name) == "Completed" for name in acknowledged) and phases

    phases = wait_until(all_completed, "every acknowledged job to complete", deadline_s=600, interval_s=1)
    # Unacknowledged submissions may be there (stored, then the hub died
    # before it answered) but then whole: completed like the others.
    for name, phase in phases.items():
        test.assertEqual(phase, "Completed", name)
    test.assertFalse(os.path.exists(os.path.join(marks, "overlaps")),
                     "a job found its own lock held: two copies ran at once")
    for name in phases:
        with open(os.path.join(marks, f"{name}.runs")) as f:
            test.assertEqual(f.read().split(), ["run"], f"{name} ran more than once")
    return phases


class HubCrash(unittest.TestCase):
    jobs = JOBS

    def store_args(self):
        """The hub's --store: none here, gantry.db in its state directory."""
        return []

    def setUp(self):
        # Production's proportions (lease 30 s, lost grace 2 m), scaled down: a
        # hub restart (about a second) stays well inside the agents' fence
        # timeout, so no run is fenced while its hub is away.
        self.gantry = Cluster(agent_lease_ms=2000, lost_grace_ms=20000,
                              hub_args=["--recovery-grace-ms", "1000", *self.store_args()])
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.marks = os.path.join(self.gantry.workdir, "marks")
        os.makedirs(self.marks)
        os.chmod(self.marks, 0o777)  # the replicas run as nobody (--run-as) and write here
        inventory = os.path.join(SOURCE_DIR, "examples", "inventories", "east.yaml")
        for cluster in CLUSTERS:
            self.gantry.start_agent(cluster, inventory, executor="process", extra_args=("--cluster", cluster))
        self.gantry.wait_ready_clusters(len(CLUSTERS))

    def test_acknowledged_jobs_complete_exactly_once_across_hub_kills(self):
        seed = int(os.environ.get("GANTRY_CRASH_SEED", str(random.randrange(1 << 30))))
        print(f"GANTRY_CRASH_SEED={seed}")
        chance = random.Random(seed)
        submitter = Submitter(self.gantry, self.marks, self.jobs)
        submitter.start()
        kills = 0
        while kills < KILLS or (submitter.is_alive() and kills < MAX_KILLS):
            time.sleep(chance.uniform(0.2, 2.0))  # a random moment, not a synchronisation
            self.gantry.restart_hub()  # kill -9, then a new hub on the same state
            kills += 1
            # Each hub lives until its agents are back: a hub that never lets
            # them confirm contact would have them fence their runs (as they
            # must when their hub is gone that long), which is not this test.
            self.gantry.wait_ready_clusters(len(CLUSTERS))
        submitter.join()
        print(f"{kills} hub kills; {len(submitter.acknowledged)} of {self.jobs} submissions acknowledged; "
              f"{submitter.failures} submit batches cut by a kill")
        self.assertGreaterEqual(kills, KILLS)
        self.assertEqual(len(submitter.acknowledged), len(set(submitter.acknowledged)))

        phases = assert_completed_once(self, self.gantry, self.marks, set(submitter.acknowledged))

        # Still listed after one more restart.
        self.gantry.restart_hub()
        listed = {job["name"] for job in json.loads(self.gantry.ctl("get", "jobs", "-o", "json").stdout)}
        self.assertEqual(listed, set(phases))


if __name__ == "__main__":
    unittest.main()
