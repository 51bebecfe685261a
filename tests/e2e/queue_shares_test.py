"""Acceptance (issue 12, queue semantics as Volcano's proportion plugin): two
queues of weights 1:3 with 60 one-GPU jobs each share a 40-GPU pool 10:30
while `default` is idle, because a queue never deserves more than it asks for."""

import os
import unittest

from gantry_harness import Cluster, job_yaml, wait_until

POOL = """cluster:
  name: pool
nodes:
""" + "".join(f"""  - name: pool-{i}
    allocatable: {{cpu: "96", memory: 1Ti, nvidia.com/gpu: 8}}
""" for i in range(5))

QUEUE = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: {name}
spec:
  weight: {weight}
  reclaimable: true
"""


class QueueShares(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)
        inventory = os.path.join(self.gantry.workdir, "pool40.yaml")
        with open(inventory, "w") as f:
            f.write(POOL)
        self.gantry.start_agent("pool", inventory)
        self.gantry.wait_ready_clusters(1)
        for name, weight in (("light", 1), ("heavy", 3)):
            self.gantry.ctl("apply", "-f", "-", input_text=QUEUE.format(name=name, weight=weight))

    def allocated(self):
        queues = {q["name"]: q for q in self.gantry.get("queues")}
        return {name: queues[name]["allocated"].get("nvidia.com/gpu", 0) for name in ("light", "heavy", "default")}

    def test_weights_one_to_three_hold_with_default_idle(self):
        for i in range(60):  # interleaved: neither queue gets a head start
            for queue in ("light", "heavy"):
                self.gantry.submit(job_yaml(f"{queue}-{i}", [("w", 1, {"cpu": 1, "nvidia.com/gpu": 1}, None, None)],
                                            annotations={"gantry.io/sim-duration": "3600"}, queue=queue))
        # 5 % of the 40-GPU pool: 2 GPUs either way.
        wait_until(lambda: (a := self.allocated()) and abs(a["light"] - 10) <= 2 and abs(a["heavy"] - 30) <= 2
                   and a["light"] + a["heavy"] == 40, "light and heavy to settle at 10 and 30 GPUs",
                   deadline_s=120)
        for _ in range(5):  # and they hold there while both stay saturated
            allocated = self.allocated()
            self.assertLessEqual(abs(allocated["light"] - 10), 2, allocated)
            self.assertLessEqual(abs(allocated["heavy"] - 30), 2, allocated)
            self.assertEqual(allocated["default"], 0)
        queues = {q["name"]: q for q in self.gantry.get("queues")}
        self.assertEqual(queues["heavy"]["deserved"]["nvidia.com/gpu"], 30)
        self.assertEqual(queues["light"]["deserved"]["nvidia.com/gpu"], 10)
        table = self.gantry.ctl("get", "queues").stdout
        self.assertNotRegex(table, r"\d{7,}m", "quantities as people write them")


if __name__ == "__main__":
    unittest.main(verbosity=2)
