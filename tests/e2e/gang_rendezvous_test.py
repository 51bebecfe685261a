"""Acceptance: a 2-replica job on the process executor whose replicas rendezvous
through MASTER_ADDR:MASTER_PORT with real PyTorch gloo. Each replica all-reduces
its rank + 1; the sum (3) is only reached when both replicas started."""

import os
import sys
import unittest

from gantry_harness import Cluster, job_yaml, wait_until

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gloo_allreduce.py")


class GangRendezvous(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.gantry.start_agent("local", "east.yaml", executor="process")
        self.gantry.wait_ready_clusters(1)

    def test_two_replicas_meet_through_gloo(self):
        command = [sys.executable, SCRIPT]
        self.gantry.submit(job_yaml("gloo-pair", [("worker", 2, {"cpu": 1}, command, None)], min_available=2))
        job = wait_until(lambda: (j := self.gantry.job("gloo-pair"))["phase"] in ("Completed", "Failed") and j,
                         "the gloo job to end", deadline_s=240)
        self.assertEqual(job["phase"], "Completed", self.gantry.log("agent-local"))
        outputs = self.gantry.replica_output("local", "gloo-pair")
        self.assertEqual(outputs.count("allreduce sum 3.0 world 2"), 2, outputs)

    def test_a_replica_alone_never_completes_the_rendezvous(self):
        # The same script with WORLD_SIZE forced to 2 but one replica: gloo waits for a
        # peer that never comes, the script's own timeout fails it. This is what the
        # positive test relies on: completion proves both replicas were started.
        command = [sys.executable, SCRIPT, "--world-size", "2", "--timeout-s", "5"]
        self.gantry.submit(job_yaml("gloo-alone", [("worker", 1, {"cpu": 1}, command, None)]))
        job = wait_until(lambda: (j := self.gantry.job("gloo-alone"))["phase"] in ("Completed", "Failed") and j,
                         "the lonely gloo job to end", deadline_s=240)
        self.assertEqual(job["phase"], "Failed")


if __name__ == "__main__":
    unittest.main(verbosity=2)
