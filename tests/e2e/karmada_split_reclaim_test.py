"""Acceptance (Karmada mode), on a FIXTURE Karmada API server: a gang that fits no single member
cluster is released as an atomic split (one patch naming every cluster) only when its binding allows
dividing replicas; reclaim takes borrowed capacity back by re-suspending the borrower's binding
(spec.clusters removed), which is released again once capacity frees; a member cluster that also
runs a Gantry agent is known by the agent's node-level report; after a hub restart, a released
binding is taken back as running, not released again."""

import tempfile
import unittest

from karmada_harness import (CLUSTERS, GPU, decision, KarmadaFixture, KarmadaHub, cluster_object,
                             gantry_queue_yaml, released, submit_volcano_job, volcano_job, wait_until)


class KarmadaSplitReclaim(unittest.TestCase):
    def setUp(self):
        self.karmada = KarmadaFixture(tempfile.mkdtemp(prefix="gantry-karmada-"))
        self.addCleanup(self.karmada.close)
        for name in ("east", "west"):
            self.karmada.create(CLUSTERS, cluster_object(name, 2))  # 2 nodes x 8 GPUs each
        # Reclaim at once: the minimum runtime that spares fresh releases (60 s by default in
        # Karmada mode) is the core's, proven with a paused clock (tests/core/fair_share_test.cpp).
        self.gantry = KarmadaHub(self.karmada, hub_args=["--min-runtime", "0"])
        self.addCleanup(self.gantry.close)
        self.gantry.wait_ready_clusters(2)

    def binding(self, name):
        for binding in self.karmada.bindings():
            if binding["metadata"]["name"] == name:
                return binding
        raise AssertionError(f"binding {name} not found")

    def job(self, name):
        return self.gantry.job(f"team-a.{name}")

    def test_a_gang_no_cluster_fits_is_split_atomically_only_when_divided(self):
        submit_volcano_job(self.karmada, volcano_job("team-a", "whole", "default", replicas=3, gpus=8))
        # Until the first pass has considered it, a job's reason only says it waits for that pass.
        reason = wait_until(lambda: "larger than every cluster" in (
            r := (self.gantry.find_job("team-a.whole-job") or {}).get("reason") or "") and r,
                            "the whole gang to be considered and wait, naming the shortfall")
        self.assertIn("16", reason, "the reason names the largest cluster's GPUs")
        self.assertFalse(released(self.binding("whole-job")))

        submit_volcano_job(self.karmada, volcano_job("team-a", "divided", "default", replicas=3, gpus=8),
                           divided=True)
        binding = wait_until(lambda: (b := self.binding("divided-job")) and released(b) and b,
                             "the divided gang to be released")
        clusters = {c["name"]: c["replicas"] for c in binding["spec"]["clusters"]}
        self.assertEqual(sorted(clusters), ["east", "west"])
        self.assertEqual(sum(clusters.values()), 3)
        writes = [r for r in self.karmada.fixture("GET", "requests")
                  if r["method"] == "PATCH" and r["path"].endswith("/divided-job") and r["status"] == 200
                  and ((r.get("body") or {}).get("spec") or {}).get("clusters")]
        self.assertEqual(len(writes), 1, "one patch names every part: Karmada never sees half a gang")
        self.assertEqual(len(writes[0]["body"]["spec"]["clusters"]), 2)
        self.assertFalse(released(self.binding("whole-job")))

        self.karmada.set_status(binding, "Completed")
        wait_until(lambda: self.job("divided-job")["phase"] == "Completed", "the split job to complete")

    def test_reclaim_resuspends_a_borrowed_binding(self):
        for name in ("lender", "owner"):
            self.gantry.ctl("apply", "-f", "-", input_text=gantry_queue_yaml(name, deserved_gpus=16))
        lender = [f"lender-{i}" for i in range(4)]
        for name in lender:
            submit_volcano_job(self.karmada, volcano_job("team-a", name, "lender", replicas=1, gpus=8))
        wait_until(lambda: all(released(self.binding(f"{n}-job")) for n in lender),
                   "the lender to borrow the whole pool")
        for name in lender:
            self.karmada.set_status(self.binding(f"{name}-job"), "Running")

        owner = ["owner-0", "owner-1"]
        for name in owner:
            submit_volcano_job(self.karmada, volcano_job("team-a", name, "owner", replicas=1, gpus=8))
        suspended = wait_until(lambda: len(s := [n for n in lender if not released(self.binding(f"{n}-job"))]) >= 2
                               and s, "reclaim to re-suspend borrowed bindings")
        # Their room stays counted until Karmada shows their member workloads gone: played here by
        # hand (no --karmada-members), as Karmada drops the items once the pods are gone.
        for name in suspended:
            self.karmada.set_status(self.binding(f"{name}-job"), "Running")  # no clusters: no items
        wait_until(lambda: all(released(self.binding(f"{n}-job")) for n in owner),
                   "the owner's bindings to be released after reclaim")
        self.assertEqual(len(suspended), 2, "two borrowed gangs give back the owner's 16 GPUs")
        for name in suspended:
            binding = self.binding(f"{name}-job")
            self.assertTrue(binding["spec"]["suspension"]["scheduling"])
            self.assertFalse(binding["spec"].get("clusters"))
            self.assertGreater(self.job(f"{name}-job")["requeues"], 0)

        for name in owner + [n for n in lender if n not in suspended]:
            self.karmada.set_status(self.binding(f"{name}-job"), "Completed")
        wait_until(lambda: all(released(self.binding(f"{n}-job")) for n in suspended),
                   "the evicted bindings to be released again")

    def clusters(self):
        return {c["name"]: c for c in self.gantry.get("clusters")}

    def test_a_cluster_with_its_own_agent_is_known_by_the_agents_report(self):
        self.gantry.start_agent("east", "east.yaml")  # 6 nodes (4 with 4 GPUs), region us-east
        east = wait_until(lambda: (c := self.clusters().get("east")) and c["nodes"] == 6 and c,
                          "the agent to take east over from the gateway")
        self.assertEqual(east["labels"].get("region"), "us-east")
        wait_until(lambda: "east is served by its Gantry agent" in self.gantry.log("hub"),
                   "the gateway's Hello for east to be refused")
        # Bindings go to Karmada's own members (east's 4-GPU nodes would fit this one, but its agent
        # would run it as local processes).
        submit_volcano_job(self.karmada, volcano_job("team-a", "solo", "default", replicas=1, gpus=4))
        binding = wait_until(lambda: (b := self.binding("solo-job")) and released(b) and b, "solo to be released")
        self.assertEqual([c["name"] for c in binding["spec"]["clusters"]], ["west"])
        east = self.clusters()["east"]
        self.assertEqual((east["nodes"], east["labels"].get("region")), (6, "us-east"),
                         "the gateway never took east back from its agent")

    def test_a_released_binding_survives_a_hub_restart(self):
        submit_volcano_job(self.karmada, volcano_job("team-a", "long", "default", replicas=2, gpus=8))
        before = wait_until(lambda: (b := self.binding("long-job")) and released(b) and b, "long to be released")
        self.karmada.set_status(before, "Running")
        wait_until(lambda: self.job("long-job")["tasks"], "the running status to reach the hub")

        self.gantry.restart_hub()  # SIGKILL, then a new hub (and gateway) on the same state
        wait_until(lambda: "taken back" in self.gantry.log("hub"), "the new hub to take the run back")
        self.assertEqual(self.job("long-job")["phase"], "Running")
        after = self.binding("long-job")
        self.assertEqual(decision(after)["dispatchId"], decision(before)["dispatchId"],
                         "the binding keeps its placement: it was not released again")
        self.karmada.set_status(after, "Completed")
        wait_until(lambda: self.job("long-job")["phase"] == "Completed", "the taken-back job to complete")


if __name__ == "__main__":
    unittest.main(verbosity=2)
