"""Node taints (issue 25), real processes only: a hub and one sim-executor agent
whose inventory (examples/inventories/tainted.yaml) taints its GPU nodes
nvidia.com/gpu=present:NoSchedule, and gantryctl on loopback.

- A GPU job without the toleration (examples/jobs/finetune-1gpu.yaml) stays
  Pending although the cluster has free GPUs, and its reason names the taint.
- A GPU job with it (examples/jobs/gpu-tolerating.yaml) is placed by the hub
  and admitted by the agent on a tainted node, and completes.
"""

import os
import unittest

from gantry_harness import SOURCE_DIR, Cluster, wait_until

TAINT_NOTE = "nodes with room have untolerated taints (nvidia.com/gpu=present:NoSchedule)"


def example_job(name):
    with open(os.path.join(SOURCE_DIR, "examples", "jobs", f"{name}.yaml")) as f:
        return f.read()


class Taints(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster(heartbeat_ms=200, liveness=3)
        self.addCleanup(self.gantry.close)
        self.gantry.start_agent("tainted", "tainted.yaml")
        self.gantry.wait_ready_clusters(1)

    def phase(self, name):
        return self.gantry.job(name)["phase"]

    def test_only_a_tolerating_job_runs_on_tainted_gpu_nodes(self):
        self.gantry.submit(example_job("finetune-1gpu"))
        reason = wait_until(
            lambda: TAINT_NOTE in (job := self.gantry.job("finetune-1gpu"))["reason"]
            and job["reason"], "finetune-1gpu's taint reason")
        self.assertEqual(self.phase("finetune-1gpu"), "Pending", reason)

        self.gantry.submit(example_job("gpu-tolerating"))
        wait_until(lambda: self.phase("gpu-tolerating") in ("Completed", "Failed", "Aborted"),
                   "gpu-tolerating to end")
        self.assertEqual(self.phase("gpu-tolerating"), "Completed",
                         self.gantry.ctl("describe", "job", "gpu-tolerating").stdout)
        self.assertEqual(self.phase("finetune-1gpu"), "Pending")


if __name__ == "__main__":
    unittest.main()
