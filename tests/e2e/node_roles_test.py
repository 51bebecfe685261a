"""Acceptance (agents in real clusters, bare-machine form): two node-role agents read their GPUs
through a FIXTURE libnvidia-ml.so.1 (scripted per node: no GPU exists here) and /proc, and report over
ZeroMQ to one cluster-role agent, which holds the hub session. gantryctl shows the cluster's GPU
capacity and use as NVML reported them, and a gang runs on it with the process executor. Every part
is a separate real process."""

import json
import os
import unittest

from gantry_harness import Cluster, free_port, job_yaml, wait_until

FAKE_NVML = os.environ["GANTRY_FAKE_NVML"]
A100 = "name=NVIDIA A100-SXM4-80GB memory_total=85899345920 memory_used={used} utilization={util} processes={procs}"


class NodeRoles(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)
        self.node_endpoint = f"tcp://127.0.0.1:{free_port()}"
        self.gantry._spawn("agent-cluster", [
            os.path.join(os.environ["GANTRY_BIN_DIR"], "gantry-agent"), "--role", "cluster", "--hub",
            self.gantry.agents_endpoint, "--cluster", "lab", "--node-listen", self.node_endpoint,
            "--executor", "process", "--work-dir", os.path.join(self.gantry.workdir, "agent-lab"),
            "--heartbeat-ms", str(self.gantry.heartbeat_ms), "--report-interval-ms", "200",
            *self.gantry.allow_agent("lab"),
            # A root agent refuses to run replicas as root.
            *(["--run-as", "nobody"] if os.geteuid() == 0 else [])])
        # node-a: 2 GPUs, one busy; node-b: 4 idle GPUs.
        self.start_node("node-a", [A100.format(used=40 << 30, util=37, procs=1),
                                   A100.format(used=0, util=0, procs=0)])
        self.start_node("node-b", [A100.format(used=0, util=0, procs=0)] * 4)

    def start_node(self, name, gpu_lines):
        script = os.path.join(self.gantry.workdir, f"{name}.nvml")
        with open(script, "w") as f:
            f.write("# FIXTURE NVML script\n" + "\n".join(gpu_lines) + "\n")
        os.environ["GANTRY_FAKE_NVML_SCRIPT"] = script  # inherited by the process spawned next
        try:
            self.gantry._spawn(f"agent-{name}", [
                os.path.join(os.environ["GANTRY_BIN_DIR"], "gantry-agent"), "--role", "node",
                "--cluster-agent", self.node_endpoint, "--cluster", "lab", "--node-name", name,
                "--nvml-library", FAKE_NVML, "--report-interval-ms", "200",
                # One Secret for the cluster's agents, as the DaemonSet mounts it: the node agent
                # presents the cluster agent's key and expects it back (--cluster-key's default).
                "--key", self.gantry.keys.generate("agent-lab")])
        finally:
            del os.environ["GANTRY_FAKE_NVML_SCRIPT"]

    def lab(self):
        return next((c for c in self.gantry.get("clusters") if c["name"] == "lab"), None)

    def test_gpu_capacity_and_use_come_from_the_nodes_nvml(self):
        lab = wait_until(lambda: (c := self.lab()) and c["nodes"] == 2 and c,
                         "the cluster-role agent to report both nodes")
        self.assertTrue(lab["ready"])
        self.assertEqual(lab["capacity"]["nvidia.com/gpu"], 6, json.dumps(lab))
        wide = self.gantry.ctl("get", "clusters", "-o", "wide").stdout
        self.assertIn("IDLE-GPUS", wide)
        row = next(line for line in wide.splitlines() if line.startswith("lab")).split()
        header = wide.splitlines()[0].split()
        columns = dict(zip(header, row))
        self.assertEqual(columns["GPU-UTIL"], "6%", wide)  # (37 + 0 x 5) / 6 GPUs
        self.assertEqual(columns["IDLE-GPUS"], "5", wide)
        # A 4-GPU replica fits only node-b; the gang runs as a local process and completes.
        command = ["sh", "-c", 'echo "$GANTRY_NODE"']
        name = self.gantry.submit(job_yaml("nvml-gang", [("w", 1, {"cpu": 1, "nvidia.com/gpu": 4}, command, None)]))
        wait_until(lambda: self.gantry.job(name)["phase"] == "Completed", "the gang to complete")
        self.assertEqual(self.gantry.replica_output("lab", name).strip(), "node-b")


if __name__ == "__main__":
    unittest.main(verbosity=2)
