"""Acceptance: many jobs in one round trip (issue 32). `gantryctl submit -f DIR` sends a
directory's manifests as one SubmitJobsRequest: every valid job is accepted, a refused document
is named by its file without stopping the others. A job array (gantry.io/array, Slurm's
--array syntax) becomes one job per index, NAME-INDEX, each of whose replicas sees its index in
GANTRY_ARRAY_TASK_ID as a Slurm array task sees SLURM_ARRAY_TASK_ID; the elements are listed by
the label gantry.io/array-job, run on a real agent (process executor) and are recorded: a hub
restarted on the same state still knows them."""

import os
import unittest

from gantry_harness import Cluster, job_yaml, wait_until


def array_yaml(name, indices):
    """A one-replica job printing its array index, as an array over `indices`."""
    text = job_yaml(name, [("echo", 1, {"cpu": 1},
                            ["sh", "-c", "echo task $GANTRY_ARRAY_TASK_ID of $GANTRY_ARRAY_TASK_COUNT"
                                         " in $GANTRY_ARRAY_JOB_NAME"], None)],
                    annotations={"gantry.io/array": indices})
    return text


class JobArrays(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)
        self.gantry.start_agent("east", "east.yaml", executor="process")
        self.gantry.wait_ready_clusters(1)
        self.manifests = os.path.join(self.gantry.workdir, "manifests")
        os.makedirs(self.manifests)

    def write(self, name, text):
        with open(os.path.join(self.manifests, name), "w") as f:
            f.write(text)

    def test_a_directory_and_an_array_go_in_one_submit_and_each_element_sees_its_index(self):
        self.write("a-sweep.yaml", array_yaml("sweep", "1-5:2,8"))
        self.write("b-single.yaml", job_yaml("single", [("main", 1, {"cpu": 1}, ["true"], None)]))
        self.write("c-bad.yaml", job_yaml("bad", [("main", 0, {"cpu": 1}, ["true"], None)]))
        self.write("notes.txt", "not a manifest: -f DIR skips it\n")

        submitted = self.gantry.ctl("submit", "-f", self.manifests, check=False)
        self.assertEqual(submitted.returncode, 1, "a refused document makes the exit status 1")
        self.assertEqual(submitted.stdout.split(), ["sweep-1", "sweep-3", "sweep-5", "sweep-8", "single"])
        bad = os.path.join(self.manifests, "c-bad.yaml")
        self.assertEqual(submitted.stderr.strip(),
                         f'error: job refused ({bad}): spec.tasks[0].replicas: must be at least 1 (got "0")')

        elements = ["sweep-1", "sweep-3", "sweep-5", "sweep-8"]
        for name in elements + ["single"]:
            wait_until(lambda n=name: self.gantry.job(n)["phase"] == "Completed", f"{name} to complete")
        for index, name in zip([1, 3, 5, 8], elements):
            self.assertEqual(self.gantry.replica_output("east", name).strip(), f"task {index} of 4 in sweep")

        listed = self.gantry.ctl("get", "jobs", "-l", "gantry.io/array-job=sweep", "-o", "name").stdout.split()
        self.assertEqual(sorted(listed), [f"job/{name}" for name in elements])

        self.gantry.restart_hub()
        after = {job["name"]: job["phase"] for job in self.gantry.get("jobs")}
        self.assertEqual({name: after.get(name) for name in elements + ["single"]},
                         {name: "Completed" for name in elements + ["single"]},
                         "the hub restarted on the same state knows every recorded job")

    def test_an_array_that_cannot_be_expanded_is_refused_whole_with_the_field_and_limit(self):
        result = self.gantry.ctl("submit", "-f", "-", input_text=array_yaml("huge", "0-10000"), check=False)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr.strip(),
                         'error: job refused: metadata.annotations.gantry.io/array: names more than 10000 '
                         'jobs, the limit (got "0-10000")')
        self.assertEqual([job for job in self.gantry.get("jobs") if job["name"].startswith("huge")], [])

    def test_an_element_refused_by_the_core_is_named_and_the_others_run(self):
        self.gantry.submit(job_yaml("dup-2", [("main", 1, {"cpu": 1}, ["true"], None)]))
        result = self.gantry.ctl("submit", "-f", "-", input_text=array_yaml("dup", "1-3"), check=False)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout.split(), ["dup-1", "dup-3"])
        self.assertIn("error: job refused (dup-2): ", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        for name in ("dup-1", "dup-3"):
            wait_until(lambda n=name: self.gantry.job(n)["phase"] == "Completed", f"{name} to complete")


if __name__ == "__main__":
    unittest.main()
