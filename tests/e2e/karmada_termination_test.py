"""Karmada mode, evictions and terminating pods (docs/karmada.md, issue 26), on a FIXTURE Karmada API
server applying released bindings to its member (--karmada-members): a binding taken off a member
keeps its aggregatedStatus item while the member's pods terminate (--member-termination-ms). Reclaim
evicts one of two borrowed gangs from a full member for a gang that needs exactly that room; the
waiting gang must not be released to the member while the evicted gang's item is still there, and
is released once it is gone."""

import tempfile
import unittest

from karmada_harness import CLUSTERS, KarmadaFixture, KarmadaHub, cluster_object, gantry_queue_yaml, \
    open_member_queue, released, submit_volcano_job, volcano_job, wait_until

NS = "team-a"
TERMINATION_MS = 3000  # long enough to be seen, short enough for a test


def has_item(binding, cluster):
    items = (binding.get("status") or {}).get("aggregatedStatus") or []
    return any(item.get("clusterName") == cluster for item in items)


class KarmadaTermination(unittest.TestCase):
    def setUp(self):
        self.karmada = KarmadaFixture(tempfile.mkdtemp(prefix="gantry-karmada-termination-"),
                                      ["--karmada-members", "--member-termination-ms", str(TERMINATION_MS)])
        self.addCleanup(self.karmada.close)
        self.karmada.create(CLUSTERS, cluster_object("east", 2))  # 2 nodes x 8 GPUs: 16 in all
        for name in ("lender", "owner"):
            self.karmada.create("/apis/scheduling.volcano.sh/v1beta1/queues", open_member_queue(name))
        # Reclaim at once (the minimum runtime is the core's, tested on its own).
        self.gantry = KarmadaHub(self.karmada, hub_args=["--min-runtime", "0"])
        self.addCleanup(self.gantry.close)
        self.gantry.wait_ready_clusters(1)
        for name in ("lender", "owner"):
            self.gantry.ctl("apply", "-f", "-", input_text=gantry_queue_yaml(name, deserved_gpus=8))

    def bindings(self):
        return {b["metadata"]["name"]: b for b in self.karmada.bindings()}

    def test_a_gang_waits_for_the_evicted_gangs_pods_to_be_gone(self):
        lender = ["lender-0", "lender-1"]
        for name in lender:
            submit_volcano_job(self.karmada, volcano_job(NS, name, "lender", replicas=1, gpus=8))
        wait_until(lambda: all(has_item(self.bindings()[f"{n}-job"], "east") for n in lender),
                   "the lender to fill east, both members applied")

        submit_volcano_job(self.karmada, volcano_job(NS, "owner", "owner", replicas=1, gpus=8))
        seen = {"terminating": False}

        def owner_released():
            # The owner is read first: an item still there after it shows released was there then.
            owner = self.bindings()["owner-job"]
            evicted = [b for n, b in self.bindings().items() if n.startswith("lender") and not released(b)]
            terminating = [b["metadata"]["name"] for b in evicted if has_item(b, "east")]
            if not released(owner):
                seen["terminating"] |= bool(terminating)
                return None
            self.assertEqual(terminating, [], "the owner was released onto room whose pods still terminate")
            self.assertEqual(len(evicted), 1, "reclaim took back exactly the room the owner needs")
            return owner

        owner = wait_until(owner_released, "the owner to be released")
        self.assertTrue(seen["terminating"], "the evicted gang's item was seen while its pods terminated")
        self.assertEqual([c["name"] for c in owner["spec"]["clusters"]], ["east"])

if __name__ == "__main__":
    unittest.main(verbosity=2)
