"""Karmada mode, applies that fail (docs/karmada.md): a FIXTURE Karmada API server that applies
released bindings to its members as Karmada does (--karmada-members: the whole Volcano Job to each
listed cluster, OverridePolicies, the member's Volcano admission), and a real gantry-hub.

- A member whose Volcano refuses the Job (an OverridePolicy cut its tasks' replicas on east, not
  its minAvailable) ends that part at once: the job is requeued, east backed off for it, and it
  runs and completes on west; `describe job` shows the member's words.
- An apply Karmada holds (no applied, no message) past --karmada-apply-timeout-ms is refused the
  same way and the job is released elsewhere first."""

import os
import tempfile
import unittest

from karmada_harness import (CLUSTERS, KarmadaFixture, KarmadaHub, cluster_object, decision, gantry_queue_yaml,
                             open_member_queue, released, submit_volcano_job, volcano_job, wait_until)

NS = "team-a"
QUEUE = "train"
APPLY_TIMEOUT_MS = 3000
GANTRY_QUEUE = gantry_queue_yaml(QUEUE)
MEMBER_QUEUE = open_member_queue(QUEUE)
CUT_ON_EAST = {
    "apiVersion": "policy.karmada.io/v1alpha1", "kind": "OverridePolicy",
    "metadata": {"name": "cut-east", "namespace": NS},
    "spec": {"resourceSelectors": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job"}],
             "overrideRules": [{"targetCluster": {"clusterNames": ["east"]},
                                "overriders": {"plaintext": [{"path": "/spec/tasks/0/replicas",
                                                             "operator": "replace", "value": 1}]}}]}}
VOLCANO_REFUSAL = ("Failed to apply all manifests (0/1): admission webhook \"validatejob.volcano.sh\" denied the "
                   "request: job 'minAvailable' should not be greater than total replicas in tasks;")


class KarmadaApply(unittest.TestCase):
    def setUp(self):
        self.workdir = tempfile.mkdtemp(prefix="gantry-karmada-apply-")
        self.karmada = KarmadaFixture(self.workdir, ["--karmada-members", "--member-termination-ms", "300"])
        self.addCleanup(self.karmada.close)
        for name in ("east", "west"):
            self.karmada.create(CLUSTERS, cluster_object(name, gpu_nodes=2))  # 16 GPUs each
        self.karmada.create("/apis/scheduling.volcano.sh/v1beta1/queues", MEMBER_QUEUE)
        self.gantry = KarmadaHub(self.karmada, hub_args=["--karmada-apply-timeout-ms", str(APPLY_TIMEOUT_MS)])
        self.addCleanup(self.gantry.close)
        self.gantry.wait_ready_clusters(2)
        self.gantry.ctl("apply", "-f", "-", input_text=GANTRY_QUEUE)

    # ------------------------------------------------------------ helpers
    def submit_gang(self, name):
        """2 replicas x 8 GPUs: a whole member cluster."""
        submit_volcano_job(self.karmada, volcano_job(NS, name, QUEUE, replicas=2, gpus=8))
        return f"{NS}.{name}-job"

    def binding(self, name):
        return next(b for b in self.karmada.bindings() if b["metadata"]["name"] == f"{name}-job")

    def released_to(self, name):
        """The one cluster a released binding names, or None."""
        binding = self.binding(name)
        return binding["spec"]["clusters"][0]["name"] if released(binding) else None

    def member(self, cluster, name):
        status, body = self.karmada.request("GET", f"/fixture/members/{cluster}/{NS}/{name}")
        return body if status == 200 else None

    def run_to_completion(self, name, cluster):
        """Waits for the member on `cluster` to run it, then completes it there."""
        wait_until(lambda: (m := self.member(cluster, name)) and m["workload"] is not None,
                   f"{name} applied on {cluster}")
        wait_until(lambda: self.gantry.job(f"{NS}.{name}-job")["phase"] == "Running", f"{name} Running")
        self.karmada.fixture("POST", f"members/{cluster}/{NS}/{name}/phase?value=Completed")
        wait_until(lambda: self.gantry.job(f"{NS}.{name}-job")["phase"] == "Completed", f"{name} Completed")

    def described(self, job):
        return self.gantry.ctl("describe", "job", job).stdout

    # ------------------------------------------------------------ tests
    def test_a_member_refusing_the_job_is_re_placed_elsewhere_and_completes_there(self):
        self.karmada.create(f"/apis/policy.karmada.io/v1alpha1/namespaces/{NS}/overridepolicies", CUT_ON_EAST)
        jobs = {name: self.submit_gang(name) for name in ("gang-a", "gang-b")}
        # Each needs a whole cluster: one is released to east, the other to west. East's Volcano
        # refuses its copy at once: that part ends and the job is requeued with the member's words.
        refusal = "Karmada could not apply it on east: " + VOLCANO_REFUSAL
        refused = wait_until(lambda: next((n for n, j in jobs.items() if refusal in self.described(j)), None),
                             "one gang refused on east")
        self.assertIsNone(self.member("east", refused), "nothing runs on east")
        # The holds on east were dropped and east is backed off for it: both gangs run, one after
        # the other, on west (the other gang may meet east's refusal too) and complete there.
        done = set()
        while len(done) < 2:
            name = wait_until(lambda: next((n for n in jobs if n not in done and self.released_to(n) == "west"),
                                           None), "a gang released to west")
            self.run_to_completion(name, "west")
            done.add(name)
        self.assertIn(refusal, self.described(jobs[refused]))

    def test_an_apply_held_past_the_timeout_is_refused_and_released_elsewhere(self):
        for cluster in ("east", "west"):
            self.karmada.fixture("POST", f"members/{cluster}/{NS}/slow/apply?hold=true")
        job = self.submit_gang("slow")
        first = wait_until(lambda: self.released_to("slow"), "the gang released")
        first_dispatch = decision(self.binding("slow"))["dispatchId"]
        wait_until(lambda: self.member(first, "slow"), "the member's apply held")
        # Still applying is no refusal yet: the release stands and the job is not requeued.
        self.assertEqual(self.released_to("slow"), first)
        self.assertNotIn("rejected", self.gantry.job(job).get("reason") or "")
        expected = f"Karmada did not apply it on {first} within {APPLY_TIMEOUT_MS} ms (still applying)"
        wait_until(lambda: expected in (self.gantry.job(job).get("reason") or "") or
                   expected in self.described(job), "the held apply to time out", deadline_s=30)
        second = "west" if first == "east" else "east"
        self.karmada.fixture("POST", f"members/{second}/{NS}/slow/apply")  # applies from now on
        again = wait_until(lambda: (b := self.binding("slow")) and released(b) and
                           decision(b)["dispatchId"] != first_dispatch and b, "the gang re-released")
        self.assertEqual(again["spec"]["clusters"][0]["name"], second, "placed elsewhere first")
        self.run_to_completion("slow", second)
        self.assertIn(expected, self.described(job))


if __name__ == "__main__":
    unittest.main(verbosity=2)
