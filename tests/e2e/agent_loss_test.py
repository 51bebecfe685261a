"""Acceptance: killing an agent's process during a run does not crash the hub,
and `get clusters` shows the cluster not ready within the heartbeat timeout;
the job it ran goes back to Pending with a reason."""

import unittest

from gantry_harness import Cluster, job_yaml, wait_until


class AgentLoss(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster(heartbeat_ms=200, liveness=3)
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.gantry.start_agent("doomed", "west.yaml")
        self.gantry.start_agent("steady", "east.yaml")
        self.gantry.wait_ready_clusters(2)

    def test_killed_agent_is_marked_not_ready_and_its_job_requeued(self):
        long_t4 = job_yaml("long-t4", [("w", 1, {"nvidia.com/gpu": 2}, None, {"nvidia.com/gpu.product": "T4"})],
                           annotations={"gantry.io/sim-duration": "3600"})
        self.gantry.submit(long_t4)
        wait_until(lambda: self.gantry.job("long-t4")["phase"] == "Running", "long-t4 to run")
        self.gantry.kill("agent-doomed")

        def doomed_not_ready():
            clusters = {c["name"]: c for c in self.gantry.get("clusters")}
            return not clusters["doomed"]["ready"] and clusters

        clusters = wait_until(doomed_not_ready, "doomed to be marked not ready")
        self.assertTrue(clusters["steady"]["ready"])
        self.assertIsNone(self.gantry.processes["hub"].poll(), "the hub is still running")
        job = wait_until(lambda: (j := self.gantry.job("long-t4"))["phase"] == "Pending" and j,
                         "long-t4 to be requeued")
        self.assertIn("doomed", job["reason"])
        self.assertGreaterEqual(job["requeues"], 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
