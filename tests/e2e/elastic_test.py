"""Acceptance for elastic jobs (issue 12), real processes only: a hub, a
process agent and gantryctl on loopback.

An elastic job (minAvailable 2, replicas 4, 4 GPUs each) on a 16-GPU pool
where another job holds 8 GPUs starts with 2 replicas running, and grows to 4
running once that job ends; the replicas added by the growth see
GANTRY_ELASTIC_EPOCH 1 and WORLD_SIZE 4, the first ones epoch 0 and WORLD_SIZE
2, and the membership file GANTRY_ELASTIC_STATE says 4 members.

Replicas run `sh -c` loops that end when the test creates a file, so the test
decides when each job ends (no sleeps as synchronisation)."""

import json
import os
import shutil
import tempfile
import unittest

from gantry_harness import Cluster, job_yaml, wait_until


def read(path):
    with open(path) as file:
        return file.read()


def running(job):
    return sum(task.get("running", 0) for task in job.get("tasks", []))


class Elastic(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.gantry.start_agent("gpu8", "gpu8.yaml", executor="process")
        self.gantry.wait_ready_clusters(1)
        self.dir = tempfile.mkdtemp(prefix="gantry-elastic-e2e-")
        os.chmod(self.dir, 0o777)  # the replicas run as nobody (--run-as) and write here
        self.addCleanup(shutil.rmtree, self.dir, True)

    def until_file(self, name, record=""):
        """A replica command that records itself, then waits for `name` to exist."""
        stop = os.path.join(self.dir, name)
        return ["sh", "-c", f"{record} while [ ! -e {stop} ]; do sleep 0.1; done"]

    def release(self, name):
        open(os.path.join(self.dir, name), "w").close()

    def test_starts_with_min_available_and_grows_when_capacity_frees(self):
        self.gantry.submit(job_yaml("holder", [("main", 1, {"cpu": 1, "nvidia.com/gpu": 8},
                                                 self.until_file("holder.stop"), None)]))
        wait_until(lambda: running(self.gantry.job("holder")) == 1, "holder running")

        record = (f'echo "$GANTRY_ELASTIC_EPOCH $WORLD_SIZE $GANTRY_ELASTIC_STATE" > '
                  f'{self.dir}/replica-$GANTRY_REPLICA_INDEX;')
        self.gantry.submit(job_yaml("elastic", [("worker", 4, {"cpu": 1, "nvidia.com/gpu": 4},
                                                  self.until_file("elastic.stop", record), None)],
                                    min_available=2))
        job = wait_until(lambda: (j := self.gantry.job("elastic"))["phase"] == "Running"
                         and running(j) == 2 and j, "elastic running with 2 replicas")
        self.assertEqual(job["replicas"], 4)
        self.assertEqual(running(self.gantry.job("elastic")), 2, "no growth while the holder runs")

        self.release("holder.stop")
        wait_until(lambda: running(self.gantry.job("elastic")) == 4, "elastic grown to 4 running",
                   deadline_s=60.0)
        records = {}
        for index in range(4):
            path = os.path.join(self.dir, f"replica-{index}")
            wait_until(lambda: os.path.exists(path) and read(path).strip(), f"replica {index} env")
            records[index] = read(path).split()
        self.assertEqual(records[0][:2], ["0", "2"])
        self.assertEqual(records[1][:2], ["0", "2"])
        self.assertEqual(records[2][:2], ["1", "4"])
        self.assertEqual(records[3][:2], ["1", "4"])
        state = json.loads(read(records[3][2]))
        self.assertEqual(state["epoch"], 1)
        self.assertEqual(state["world_size"], 4)
        self.assertEqual(len(state["members"]), 4)
        self.assertEqual(state["min_replicas"], 2)
        self.assertEqual(state["max_replicas"], 4)

        self.release("elastic.stop")
        done = wait_until(lambda: (j := self.gantry.job("elastic"))["phase"] in ("Completed", "Failed")
                          and j, "elastic to end")
        self.assertEqual(done["phase"], "Completed", done["reason"])


if __name__ == "__main__":
    unittest.main()
