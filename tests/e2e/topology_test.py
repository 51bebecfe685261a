"""Network-topology-aware placement (issue 12), real processes only: a hub, one
agent on the process executor whose inventory labels its nodes with topology
tiers, and gantryctl on loopback.

- The hub reads tier 1 from a label named by --topology-tier-label.
- A hard job lands on the nodes of one tier-1 domain: each replica writes the
  GANTRY_NODE it ran on, and they all share one domain, although plain best
  fit would have mixed them (the lone node of domain b comes first).
- A hard job larger than any domain, though not than the cluster, stays
  Pending with the reason naming the tier label; the same job in soft mode
  runs to Completed across domains.
"""

import os
import unittest

from gantry_harness import Cluster, wait_until

# Tier 1 on a label of the cluster's own, named by the hub's option.
TIER1 = "example.com/nvlink-domain"
# node name -> tier-1 domain; b-0 is listed first, so best fit alone takes it.
DOMAINS = {"b-0": "nvl-b", "a-0": "nvl-a", "a-1": "nvl-a"}


def write_inventory(workdir):
    path = os.path.join(workdir, "topo.yaml")
    with open(path, "w") as f:
        f.write("cluster: {name: topo}\nnodes:\n")
        for node, domain in DOMAINS.items():
            f.write(f"  - name: {node}\n    labels: {{{TIER1}: {domain}}}\n"
                    f"    allocatable: {{cpu: \"8\", memory: 64Gi, nvidia.com/gpu: 8}}\n")
    return path


def topology_job(name, replicas, mode, out_dir):
    record = f'echo "$GANTRY_NODE" >> {out_dir}/{name}.nodes'
    return f"""apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: {name}
spec:
  minAvailable: {replicas}
  networkTopology:
    mode: {mode}
    highestTierAllowed: 1
  tasks:
    - name: worker
      replicas: {replicas}
      template:
        spec:
          containers:
            - name: main
              image: none
              command: ["sh", "-c", {record!r}]
              resources:
                requests: {{cpu: "1", nvidia.com/gpu: "8"}}
"""


class Topology(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster(heartbeat_ms=200, liveness=3,
                              hub_args=("--topology-tier-label", f"1={TIER1}"))
        self.addCleanup(self.gantry.close)
        self.gantry.start_agent("topo", write_inventory(self.gantry.workdir), executor="process")
        self.gantry.wait_ready_clusters(1)
        self.out_dir = os.path.join(self.gantry.workdir, "out")
        os.makedirs(self.out_dir)
        os.chmod(self.out_dir, 0o777)  # the replicas run as nobody (--run-as) and write here

    def phase(self, name):
        return self.gantry.job(name)["phase"]

    def wait_phase(self, name, phase):
        wait_until(lambda: self.phase(name) in (phase, "Failed", "Aborted"), f"{name} to end")
        self.assertEqual(self.phase(name), phase, self.gantry.ctl("describe", "job", name).stdout)

    def nodes_of(self, name):
        with open(os.path.join(self.out_dir, f"{name}.nodes")) as f:
            return [line.strip() for line in f if line.strip()]

    def test_a_hard_job_runs_within_one_domain(self):
        self.gantry.submit(topology_job("hard-pair", 2, "hard", self.out_dir))
        self.wait_phase("hard-pair", "Completed")
        nodes = self.nodes_of("hard-pair")
        self.assertEqual(len(nodes), 2, nodes)
        self.assertEqual({DOMAINS[node] for node in nodes}, {"nvl-a"}, nodes)

    def test_too_big_for_any_domain_waits_hard_and_runs_soft(self):
        self.gantry.submit(topology_job("hard-three", 3, "hard", self.out_dir))
        reason = wait_until(
            lambda: (job := self.gantry.job("hard-three"))["reason"].startswith("no network-topology")
            and job["reason"], "hard-three's topology reason")
        self.assertEqual(self.phase("hard-three"), "Pending")
        self.assertIn(TIER1, reason)
        self.assertIn("fits 2 in one domain", reason)

        self.gantry.ctl("cancel", "job", "hard-three")
        self.gantry.submit(topology_job("soft-three", 3, "soft", self.out_dir))
        self.wait_phase("soft-three", "Completed")
        self.assertEqual(sorted(self.nodes_of("soft-three")), sorted(DOMAINS))


if __name__ == "__main__":
    unittest.main()
