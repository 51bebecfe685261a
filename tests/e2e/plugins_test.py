"""Acceptance for Volcano's job plugins and task dependencies (issue 12), real
processes only: a hub, a process agent and gantryctl on loopback.

- tensorflow: every replica of a ps x1 / worker x2 / chief x1 job checks in
  Python that TF_CONFIG names its own role and index and lists every replica
  on this machine at distinct ports; a mismatch exits non-zero (job Failed).
- mpi: the master reads the worker hostfile Volcano's svc plugin mounts
  (here under $GANTRY_VOLCANO_DIR) and MPI_HOST, and checks they list every worker.
- ray: the head and the workers run the `ray start` commands Volcano's ray
  plugin gives their containers (which have no command of their own), the
  workers joining the head on this machine; a stand-in `ray` first on PATH
  prints the arguments it was run with.
- dependsOn: the dependent task comes first in spec order, yet its replica
  finds the task it depends on already running (its process, found by a
  per-test marker), then lets it finish.
- an argument the plugin does not take is refused at admission, naming it."""

import json
import os
import shutil
import sys
import tempfile
import unittest
import uuid

from gantry_harness import Cluster, wait_until

ENDED = ("Completed", "Failed", "Aborted")

TF_CHECK = r"""
import json, os, sys
config = json.loads(os.environ["TF_CONFIG"])
task = os.environ["GANTRY_TASK"]
index = int(os.environ["GANTRY_REPLICA_INDEX"])
cluster = config["cluster"]
sizes = {role: len(cluster.get(role, [])) for role in ("ps", "worker", "chief")}
endpoints = [e for role in ("ps", "worker", "chief") for e in cluster.get(role, [])]
problems = []
if config["task"] != {"type": task, "index": index}:
    problems.append(f"task {config['task']} for {task}-{index}")
if sizes != {"ps": 1, "worker": 2, "chief": 1}:
    problems.append(f"cluster sizes {sizes}")
if "evaluator" in cluster:
    problems.append("an evaluator list without an evaluator task")
if any(not e.startswith("127.0.0.1:") for e in endpoints):
    problems.append(f"hosts not on this machine: {endpoints}")
if len(set(endpoints)) != len(endpoints):
    problems.append(f"endpoints collide: {endpoints}")
if problems:
    print("; ".join(problems))
    sys.exit(1)
"""

MPI_MASTER_CHECK = r"""
import os, sys
with open(os.path.join(os.environ["GANTRY_VOLCANO_DIR"], "mpiworker.host")) as f:
    hostfile = f.read().split("\n")
expected = ["127.0.0.1"] * int(os.environ["VC_MPIWORKER_NUM"])
if len(expected) != 3 or hostfile != expected or os.environ["MPI_HOST"] != ",".join(expected):
    print(f"hostfile {hostfile} MPI_HOST {os.environ.get('MPI_HOST')}")
    sys.exit(1)
if not os.path.getsize(os.path.join(os.environ["GANTRY_SSH_DIR"], "id_rsa")):
    sys.exit(2)
"""

# The server waits (bounded) for the client's word that it saw the server run.
SERVER = r"""
import os, sys, time
done = sys.argv[1]
end = time.monotonic() + 60
while not os.path.exists(done):
    if time.monotonic() > end:
        sys.exit(4)
    time.sleep(0.05)
"""

# The marker is split in argv so that this process does not match it itself.
CLIENT = r"""
import os, sys
marker = sys.argv[1] + sys.argv[2]
def running(marker):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    return True
        except OSError:
            pass
    return False
if not running(marker):
    print("the server was not running when the client started")
    sys.exit(3)
open(sys.argv[3], "w").close()
"""


def task_yaml(name, replicas, argv, extra=""):
    return f"""    - name: {name}
      replicas: {replicas}
{extra}      template:
        spec:
          containers:
            - name: main
              image: none
              command: {json.dumps(argv)}
              resources:
                requests: {{cpu: "1"}}
"""


# Stands in for Ray's CLI: says which replica ran it, with which arguments.
FAKE_RAY = """#!/bin/sh
echo "ray ran by $GANTRY_TASK-$GANTRY_REPLICA_INDEX: $*"
"""


def ray_task_yaml(name, replicas, container, path):
    return f"""    - name: {name}
      replicas: {replicas}
      template:
        spec:
          containers:
            - name: {container}
              image: none
              env: [{{name: PATH, value: {json.dumps(path)}}}]
              resources:
                requests: {{cpu: "1"}}
"""


def job_manifest(name, plugins, tasks):
    plugin_lines = "".join(f"    {plugin}: {json.dumps(args)}\n" for plugin, args in plugins.items())
    text = f"""apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: {name}
spec:
  queue: default
"""
    if plugin_lines:
        text += "  plugins:\n" + plugin_lines
    return text + "  tasks:\n" + "".join(tasks)


class Plugins(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)
        self.gantry.start_agent("pool", "gpu8.yaml", executor="process")
        self.gantry.wait_ready_clusters(1)

    def ended(self, name):
        return wait_until(lambda: (j := self.gantry.job(name))["phase"] in ENDED and j, f"{name} to end")

    def expect_completed(self, name):
        job = self.ended(name)
        self.assertEqual(job["phase"], "Completed", f"{job['reason']}\n{self.gantry.log('agent-pool')}")

    def test_tensorflow_replicas_each_see_their_role_and_index(self):
        check = [sys.executable, "-c", TF_CHECK]
        self.gantry.submit(job_manifest("tf", {"tensorflow": []}, [
            task_yaml("ps", 1, check), task_yaml("worker", 2, check), task_yaml("chief", 1, check)]))
        self.expect_completed("tf")

    def test_the_mpi_master_finds_every_worker_in_its_hostfile(self):
        self.gantry.submit(job_manifest("mpi", {"mpi": ["--master=mpimaster", "--worker=mpiworker"]}, [
            task_yaml("mpimaster", 1, [sys.executable, "-c", MPI_MASTER_CHECK]),
            task_yaml("mpiworker", 3, ["sh", "-c", 'test -s "$GANTRY_SSH_DIR/authorized_keys"'])]))
        self.expect_completed("mpi")

    def test_ray_head_and_workers_run_the_commands_the_plugin_gives_them(self):
        bin_dir = tempfile.mkdtemp(prefix="gantry-e2e-ray-")
        self.addCleanup(shutil.rmtree, bin_dir, True)
        os.chmod(bin_dir, 0o755)  # the replicas run as nobody (--run-as)
        with open(os.path.join(bin_dir, "ray"), "w") as script:
            script.write(FAKE_RAY)
        os.chmod(os.path.join(bin_dir, "ray"), 0o755)
        path = f"{bin_dir}:/usr/local/bin:/usr/bin:/bin"
        self.gantry.submit(job_manifest("rc", {"ray": ["--dashboardPort=18265"]}, [
            ray_task_yaml("head", 1, "head", path), ray_task_yaml("worker", 2, "worker", path)]))
        self.expect_completed("rc")
        logs = os.path.join(self.gantry.workdir, "agent-pool", "rc")
        ran = {}
        for replica in ("head-0", "worker-0", "worker-1"):
            with open(os.path.join(logs, f"{replica}.log")) as log:
                ran[replica] = [line for line in log.read().splitlines() if line.startswith("ray ran")]
        self.assertEqual(ran, {
            "head-0": ["ray ran by head-0: start --head --block --dashboard-host=0.0.0.0 --port=6379 "
                       "--dashboard-port=18265 --ray-client-server-port=10001"],
            "worker-0": ["ray ran by worker-0: start --block --address=127.0.0.1:6379"],
            "worker-1": ["ray ran by worker-1: start --block --address=127.0.0.1:6379"]})

    def test_a_ray_job_without_its_head_task_is_refused_with_volcanos_words(self):
        self.gantry.submit(job_manifest("headless", {"ray": []}, [
            task_yaml("worker", 1, ["true"])]))
        job = wait_until(lambda: (j := self.gantry.job("headless"))["reason"] and "spec.plugins" in j["reason"] and j,
                         "the refusal")
        self.assertIn("spec.plugins.ray: job headless doesn't have head task head", job["reason"])
        self.assertNotEqual(job["phase"], "Completed")

    def test_a_dependent_task_starts_once_the_task_it_names_runs(self):
        marker = f"gantry-e2e-server-{uuid.uuid4().hex}"
        scratch = tempfile.mkdtemp(prefix="gantry-e2e-deps-")
        os.chmod(scratch, 0o777)  # the replicas run as nobody (--run-as) and write here
        done = os.path.join(scratch, "client-saw-server")
        half = len(marker) // 2
        client = [sys.executable, "-c", CLIENT, marker[:half], marker[half:], done]
        server = [sys.executable, "-c", SERVER, done, marker]
        self.gantry.submit(job_manifest("ordered", {}, [
            task_yaml("client", 1, client, "      dependsOn:\n        name: [server]\n"),
            task_yaml("server", 1, server)]))
        self.expect_completed("ordered")

    def test_an_argument_the_plugin_does_not_take_is_refused(self):
        self.gantry.submit(job_manifest("typo", {"pytorch": ["--masters=head"]}, [
            task_yaml("master", 1, ["true"])]))
        job = wait_until(lambda: (j := self.gantry.job("typo"))["reason"] and "spec.plugins" in j["reason"] and j,
                         "the refusal")
        self.assertIn('spec.plugins.pytorch: argument "--masters=head" is not an argument', job["reason"])
        self.assertNotEqual(job["phase"], "Completed")


if __name__ == "__main__":
    unittest.main()
