"""Acceptance: one hub, three agents with different inventories (8-GPU nodes only
in gpu8), 20 mixed jobs all Completed; a job that only fits gpu8 ran there; a job
larger than every cluster stays Pending naming the shortfall, also by GPU
product; clusters show their capacity per GPU product; a YAML with a bad
field is refused naming the field, and the hub keeps serving."""

import unittest

from gantry_harness import Cluster, job_yaml, wait_until

SIM = {"gantry.io/sim-duration": "0.5"}


def mixed_jobs():
    jobs = []
    for i in range(5):
        jobs.append(job_yaml(f"single-gpu-{i}", [("trainer", 1, {"cpu": 2, "nvidia.com/gpu": 1}, None, None)],
                             annotations=SIM))
    for i in range(3):
        jobs.append(job_yaml(f"pair-{i}", [("worker", 2, {"cpu": 2, "nvidia.com/gpu": 2}, None, None)],
                             annotations=SIM))
    for i in range(2):
        jobs.append(job_yaml(f"full-node-{i}", [("worker", 1, {"cpu": 8, "nvidia.com/gpu": 8}, None, None)],
                             annotations=SIM))
    for i in range(2):
        jobs.append(job_yaml(f"cpu-only-{i}", [("etl", 3, {"cpu": 4, "memory": "8Gi"}, None, None)],
                             annotations=SIM))
    for i in range(2):
        jobs.append(job_yaml(f"a100-ddp-{i}", [("worker", 4, {"cpu": 4, "nvidia.com/gpu": 1}, None,
                                                 {"nvidia.com/gpu.product": "A100"})], annotations=SIM))
    for i in range(2):
        jobs.append(job_yaml(f"t4-infer-{i}", [("infer", 2, {"cpu": 2, "nvidia.com/gpu": 2}, None,
                                                 {"nvidia.com/gpu.product": "T4"})], annotations=SIM))
    for i in range(2):
        jobs.append(job_yaml(f"quad-{i}", [("worker", 2, {"cpu": 8, "nvidia.com/gpu": 4}, None, None)],
                             annotations=SIM))
    for i in range(2):
        jobs.append(job_yaml(f"ps-worker-{i}", [("ps", 1, {"cpu": 4}, None, None),
                                                 ("worker", 2, {"cpu": 2, "nvidia.com/gpu": 1}, None, None)],
                             min_available=3, annotations=SIM))
    return jobs


class ThreeClusters(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gantry = Cluster()
        try:
            for name in ("east", "west", "gpu8"):
                cls.gantry.start_agent(name, f"{name}.yaml")
            cls.gantry.wait_ready_clusters(3)
        except BaseException:
            cls.gantry.close()  # tearDownClass does not run when setUpClass fails
            raise

    @classmethod
    def tearDownClass(cls):
        cls.gantry.close()

    def test_twenty_mixed_jobs_complete_where_they_fit(self):
        names = [self.gantry.submit(text) for text in mixed_jobs()]
        self.assertEqual(len(names), 20)

        def all_done():
            jobs = {j["name"]: j for j in self.gantry.get("jobs")}
            failed = [n for n in names if jobs[n]["phase"] in ("Failed", "Aborted")]
            self.assertEqual(failed, [], "no job may fail")
            return all(jobs[n]["phase"] == "Completed" for n in names) and jobs

        jobs = wait_until(all_done, "20 jobs to complete", deadline_s=180)
        for name in ("full-node-0", "full-node-1"):
            self.assertEqual(jobs[name]["clusters"], ["gpu8"], f"{name} fits only on 8-GPU nodes")
        for name in ("a100-ddp-0", "a100-ddp-1"):
            self.assertEqual(jobs[name]["clusters"], ["east"])
        for name in ("t4-infer-0", "t4-infer-1"):
            self.assertEqual(jobs[name]["clusters"], ["west"])

    def test_job_larger_than_every_cluster_stays_pending_naming_the_shortfall(self):
        self.gantry.submit(job_yaml("too-big", [("worker", 8, {"nvidia.com/gpu": 8}, None, None)]))

        def considered():
            job = self.gantry.job("too-big")
            return "larger than every cluster" in job["reason"] and job

        job = wait_until(considered, "a reason for too-big")
        self.assertEqual(job["phase"], "Pending")
        self.assertIn("64 nvidia.com/gpu", job["reason"])
        self.assertIn("16 nvidia.com/gpu", job["reason"])

    def test_gpus_are_counted_by_product_too(self):
        clusters = {c["name"]: c for c in self.gantry.get("clusters")}
        self.assertEqual(clusters["east"]["capacity"]["nvidia.com/gpu/A100"], 16)
        self.assertEqual(clusters["west"]["capacity"]["nvidia.com/gpu/T4"], 8)
        self.assertNotIn("nvidia.com/gpu/A100", clusters["gpu8"]["capacity"])
        # 20 GPUs fit the pool (40), but it has only 16 A100s.
        self.gantry.submit(job_yaml("too-many-a100", [("worker", 5, {"nvidia.com/gpu": 4}, None,
                                                        {"nvidia.com/gpu.product": "A100"})]))

        def considered():
            job = self.gantry.job("too-many-a100")
            return "larger than every cluster" in job["reason"] and job

        job = wait_until(considered, "a reason for too-many-a100")
        self.assertIn("needs 20 nvidia.com/gpu/A100", job["reason"])
        self.assertIn("(east) has 16 nvidia.com/gpu/A100", job["reason"])
        self.assertEqual(self.gantry.ctl("cancel", "job", "too-many-a100").returncode, 0)

    def test_bad_field_is_refused_by_name_and_the_hub_keeps_serving(self):
        bad = job_yaml("bad-replicas", [("worker", 1, {"cpu": 1}, None, None)]).replace(
            "replicas: 1", "replicas: two")
        result = self.gantry.ctl("submit", "-f", "-", input_text=bad, check=False)
        self.assertEqual(result.returncode, 1)
        self.assertIn("spec.tasks[0].replicas", result.stderr)
        self.assertIn("two", result.stderr)
        self.assertEqual(self.gantry.ctl("get", "clusters").returncode, 0)
        self.assertEqual(self.gantry.submit(job_yaml("after-bad", [("w", 1, {"cpu": 1}, None, None)],
                                                     annotations=SIM)), "after-bad")
        wait_until(lambda: self.gantry.job("after-bad")["phase"] == "Completed", "after-bad to complete")
        self.assertNotIn("bad-replicas", [j["name"] for j in self.gantry.get("jobs")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
