"""Acceptance (queue capacity): queue A borrows the whole pool, queue B submits
within its deserved share; B's jobs start after A's borrowed jobs are reclaimed,
and A's evicted jobs later complete."""

import unittest

from gantry_harness import Cluster, job_yaml, wait_until

QUEUE = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: {name}
spec:
  weight: 1
  reclaimable: true
  deserved: {{nvidia.com/gpu: 8}}
"""


class Reclaim(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.gantry.start_agent("pool", "gpu8.yaml")  # 2 nodes x 8 GPUs
        self.gantry.wait_ready_clusters(1)
        for name in ("team-a", "team-b"):
            self.gantry.ctl("apply", "-f", "-", input_text=QUEUE.format(name=name))

    def jobs(self, prefix, count, seconds):
        return [self.gantry.submit(job_yaml(f"{prefix}-{i}", [("w", 1, {"cpu": 4, "nvidia.com/gpu": 4}, None, None)],
                                            annotations={"gantry.io/sim-duration": str(seconds)},
                                            queue=prefix.split("-job")[0]))
                for i in range(count)]

    def phases(self):
        return {j["name"]: j for j in self.gantry.get("jobs")}

    def test_borrowed_capacity_is_reclaimed_and_the_evicted_jobs_finish_later(self):
        a_jobs = self.jobs("team-a-job", 4, 8)
        wait_until(lambda: all(self.phases()[n]["phase"] == "Running" for n in a_jobs),
                   "team-a to borrow the whole pool")
        queues = {q["name"]: q for q in self.gantry.get("queues")}
        self.assertEqual(queues["team-a"]["allocated"]["nvidia.com/gpu"], 16)
        self.assertEqual(queues["team-a"]["deserved"]["nvidia.com/gpu"], 8)

        b_jobs = self.jobs("team-b-job", 2, 1)
        wait_until(lambda: all(self.phases()[n]["phase"] in ("Running", "Completed") for n in b_jobs),
                   "team-b's jobs to start after reclaim")
        jobs = self.phases()
        evicted = [n for n in a_jobs if jobs[n]["requeues"] > 0]
        self.assertEqual(len(evicted), 2, "two whole 4-GPU gangs make room for team-b's 8 GPUs")
        self.assertEqual(sorted(evicted), ["team-a-job-2", "team-a-job-3"], "newest first")

        done = wait_until(lambda: (p := self.phases()) and all(p[n]["phase"] == "Completed" for n in a_jobs + b_jobs)
                          and p, "every job, the evicted ones too, to complete", deadline_s=180)
        self.assertTrue(all(done[n]["phase"] == "Completed" for n in evicted))

        # Its events tell that story in order, naming who took its place.
        described = self.gantry.ctl("describe", "job", "team-a-job-3").stdout
        events = [line.strip().split(" ", 1)[1] for line in described.split("Events:\n", 1)[1].strip().splitlines()]
        dispatched = r"^dispatched to pool \(w x1\); scores: pool -?\d+$"
        self.assertEqual(events[0], "submitted", described)
        self.assertRegex(events[1], dispatched)
        self.assertEqual(events[2], "admitted by pool; committed")
        self.assertRegex(events[3], r"^evicted from pool: reclaimed by queue team-b for job team-b-job-[01]; requeued$")
        # Then why it waits for room again (each new kind of reason once), and its second run.
        waits = [e for e in events[4:-3]]
        self.assertGreaterEqual(len(waits), 1, described)
        self.assertTrue(all(e.startswith("waiting: ") for e in waits), described)
        self.assertRegex(events[-3], dispatched)
        self.assertEqual(events[-2:], ["admitted by pool; committed", "Completed on pool"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
