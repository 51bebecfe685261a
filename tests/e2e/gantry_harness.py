"""Starts real Gantry processes (hub, agents) on free loopback ports and drives
them through the real gantryctl binary. Shared by the end-to-end tests."""

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

from gantry_keys import KeyRing

BIN_DIR = os.environ["GANTRY_BIN_DIR"]
SOURCE_DIR = os.environ["GANTRY_SOURCE_DIR"]


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def processes_with(marker):
    """Pids of this machine's processes whose command line holds `marker` (never this test's)."""
    result = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return [line for line in result.stdout.split() if line and int(line) != os.getpid()]


def http_get(port, path, token_file=None):
    """(status, body) of GET http://127.0.0.1:port/path, with the bearer token of token_file;
    (None, "") while nothing listens there."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token_file:
        with open(token_file, encoding="utf-8") as token:
            request.add_header("Authorization", f"Bearer {token.read().strip()}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return None, ""


def wait_until(condition, what, deadline_s=60.0, interval_s=0.05):
    """Polls `condition` until it returns a truthy value; fails naming `what`.
    The deadline only bounds a hung run: the event itself ends the wait."""
    end = time.monotonic() + deadline_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval_s)


class Cluster:
    """A hub plus agents, all real processes; everything is stopped on close()."""

    def __init__(self, heartbeat_ms=200, liveness=3, hub_args=(), agent_lease_ms=None, lost_grace_ms=None,
                 prepare_workdir=None):
        self.workdir = tempfile.mkdtemp(prefix="gantry-e2e-")
        self.state_dir = os.path.join(self.workdir, "state")
        if prepare_workdir:
            prepare_workdir(self.workdir)  # e.g. mount a small file system at state/
        self.hub_args = list(hub_args)
        # Leases on the scale of the heartbeat, so that a silent agent is seen
        # in a second, not the production 30s / 2m: not ready after one
        # liveness period, lost after three. Agents fence their runs two
        # thirds of the way (protocol/lease_timing.hpp): room enough for a
        # loaded test machine's stalls (a slow start of many replicas).
        self.agent_lease_ms = agent_lease_ms or heartbeat_ms * liveness
        self.lost_grace_ms = lost_grace_ms or 3 * self.agent_lease_ms
        self.agents_endpoint = f"tcp://127.0.0.1:{free_port()}"
        self.admin_endpoint = f"tcp://127.0.0.1:{free_port()}"
        self.heartbeat_ms = heartbeat_ms
        self.liveness = liveness
        self.processes = {}
        # CurveZMQ keys, as in production: each agent's key bound to its cluster.
        self.keys = KeyRing(os.path.join(self.workdir, "keys"))
        try:
            self._start_hub()
        except BaseException:
            self.close()  # a failed start leaves nothing running
            raise

    # ------------------------------------------------------------ processes
    def _spawn(self, name, argv):
        # A restarted hub appends; the child keeps its own copy of the descriptor.
        with open(os.path.join(self.workdir, f"{name}.log"), "ab") as log:
            process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.processes[name] = process
        return process

    def hub_argv(self, state_dir=None):
        """The hub's command line; another state directory for a second hub on one store."""
        return [
            os.path.join(BIN_DIR, "gantry-hub"), "--agents", self.agents_endpoint, "--admin",
            self.admin_endpoint, "--state", state_dir or self.state_dir, "--heartbeat-ms",
            str(self.heartbeat_ms), "--liveness", str(self.liveness), "--agent-lease",
            f"{self.agent_lease_ms}ms", "--lost-grace", f"{self.lost_grace_ms}ms",
            *self.keys.hub_args(), *self.hub_args]

    def _start_hub(self):
        self._spawn("hub", self.hub_argv())
        wait_until(lambda: self.ctl("get", "clusters", check=False).returncode == 0, "the hub to answer")

    def restart_hub(self):
        """Kills the hub without warning (unless already killed) and starts a new one on the
        same endpoints and state."""
        if "hub" in self.processes:
            self.kill("hub")
        self._start_hub()

    def reload_access(self):
        """SIGHUP: the hub rereads the access list; returns once its log says so."""
        def reloads():
            return self.log("hub").count("access list ")
        before = reloads()
        self.processes["hub"].send_signal(signal.SIGHUP)
        wait_until(lambda: reloads() > before, "the hub to reread its access list")

    def allow_agent(self, cluster):
        """The agent key of `cluster`, allowed by the hub; its command-line flags."""
        if f"agent-{cluster}" not in self.keys.agents:
            self.keys.add_agent(cluster)
            if "hub" in self.processes:
                self.reload_access()
        return self.keys.agent_args(cluster, f"agent-{cluster}")

    def start_agent(self, cluster, inventory, executor="sim", extra_args=()):
        inventory_path = inventory if os.path.isabs(inventory) else os.path.join(
            SOURCE_DIR, "examples", "inventories", inventory)
        if executor == "process" and os.geteuid() == 0 and not {"--run-as", "--allow-root"} & set(extra_args):
            # A root agent refuses to run replicas as root: they run as nobody,
            # who reaches its plugin files through this 0700 mkdtemp directory.
            extra_args = ("--run-as", "nobody", *extra_args)
            os.chmod(self.workdir, 0o711)
        return self._spawn(f"agent-{cluster}", [
            os.path.join(BIN_DIR, "gantry-agent"), "--hub", self.agents_endpoint, "--cluster", cluster,
            "--inventory", inventory_path, "--executor", executor, "--heartbeat-ms",
            str(self.heartbeat_ms), "--liveness", str(self.liveness), "--work-dir",
            os.path.join(self.workdir, f"agent-{cluster}"), *self.allow_agent(cluster), *extra_args])

    def kill(self, name):
        process = self.processes.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def close(self):
        for name, process in list(self.processes.items()):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if os.environ.get("GANTRY_KEEP_E2E") is None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def log(self, name):
        with open(os.path.join(self.workdir, f"{name}.log"), "rb") as f:
            return f.read().decode(errors="replace")

    def replica_output(self, cluster, job):
        """What the process executor on `cluster` kept of `job`'s replicas' output, in file order."""
        logs = os.path.join(self.workdir, f"agent-{cluster}", job)
        output = ""
        for name in sorted(os.listdir(logs)):
            with open(os.path.join(logs, name)) as log:
                output += log.read()
        return output

    # ------------------------------------------------------------ gantryctl
    def ctl(self, *args, input_text=None, check=True, key="gantryctl"):
        result = subprocess.run([os.path.join(BIN_DIR, "gantryctl"), "--hub", self.admin_endpoint, *args],
                                input=input_text, capture_output=True, text=True, timeout=60,
                                env={**os.environ, **self.keys.ctl_env(key)})
        if check and result.returncode != 0:
            raise AssertionError(f"gantryctl {' '.join(args)} failed ({result.returncode}): "
                                 f"{result.stdout}{result.stderr}")
        return result

    def get(self, kind):
        return json.loads(self.ctl("get", kind, "-o", "json").stdout)

    def find_job(self, name):
        """The job, or None while it is not listed (e.g. not yet submitted by a gateway)."""
        return next((job for job in self.get("jobs") if job["name"] == name), None)

    def job(self, name):
        job = self.find_job(name)
        if job is None:
            raise AssertionError(f"job {name} not listed")
        return job

    def submit(self, yaml_text):
        return self.ctl("submit", "-f", "-", input_text=yaml_text).stdout.strip()

    def wait_ready_clusters(self, count):
        wait_until(lambda: sum(1 for c in self.get("clusters") if c["ready"]) >= count,
                   f"{count} ready clusters")


def waiting_command(marks, name):
    """Appends 'started' to marks/<name>.starts, waits for marks/<name>.release,
    then writes marks/<name>.done: the test decides when the job ends."""
    base = os.path.join(marks, name)
    script = (f"echo started >> {base}.starts; "
              f"while [ ! -e {base}.release ]; do sleep 0.05; done; echo done > {base}.done")
    return ["sh", "-c", script]


def job_yaml(name, tasks, min_available=0, annotations=None, queue="default"):
    """tasks: list of (task name, replicas, requests dict, command list or None, node selector dict)."""
    lines = ["apiVersion: batch.volcano.sh/v1alpha1", "kind: Job", "metadata:", f"  name: {name}"]
    if annotations:
        lines.append("  annotations:")
        lines += [f'    {k}: "{v}"' for k, v in annotations.items()]
    lines += ["spec:", f"  queue: {queue}"]
    if min_available:
        lines.append(f"  minAvailable: {min_available}")
    lines.append("  tasks:")
    for task_name, replicas, requests, command, selector in tasks:
        lines += [f"    - name: {task_name}", f"      replicas: {replicas}", "      template:",
                  "        spec:"]
        if selector:
            lines.append("          nodeSelector: " + json.dumps(selector))
        lines += ["          containers:", "            - name: main", "              image: none"]
        if command:
            lines.append("              command: " + json.dumps(command))
        lines.append("              resources:")
        lines.append("                requests: " + json.dumps({k: str(v) for k, v in requests.items()}))
    return "\n".join(lines) + "\n"


class Streamed:
    """A gantryctl command that keeps printing (-w, -f): its lines as they come."""

    def __init__(self, gantry, *args):
        self.process = subprocess.Popen(
            [os.path.join(BIN_DIR, "gantryctl"), "--hub", gantry.admin_endpoint, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **gantry.keys.ctl_env("gantryctl")})
        self.lines = queue.Queue()
        self.seen = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def _drain(self):
        while not self.lines.empty():
            self.seen.append(self.lines.get_nowait())
        return self.seen

    def wait_for(self, predicate, what, deadline_s=60.0):
        return wait_until(lambda: any(predicate(line) for line in self._drain()), what, deadline_s)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=10)
        self.reader.join(timeout=10)
        self._drain()
        self.process.stdout.close()
        self.process.stderr.close()
