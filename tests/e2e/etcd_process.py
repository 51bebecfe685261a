"""A real etcd (Debian's etcd-server, /usr/bin/etcd) for the end-to-end tests:
one member on free loopback ports, its data in a temporary directory, ready
once its /health says so, killed on stop()."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import urllib.request

from gantry_harness import free_port, wait_until


class EtcdProcess:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="gantry-e2e-etcd-")
        self.port = free_port()
        peer = free_port()
        self.endpoint = f"127.0.0.1:{self.port}"
        with open(os.path.join(self.dir, "etcd.log"), "ab") as log:
            self.process = subprocess.Popen(
                ["etcd", "--name", "e2e", "--data-dir", os.path.join(self.dir, "data"),
                 "--listen-client-urls", f"http://{self.endpoint}",
                 "--advertise-client-urls", f"http://{self.endpoint}",
                 "--listen-peer-urls", f"http://127.0.0.1:{peer}",
                 "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
                 "--initial-cluster", f"e2e=http://127.0.0.1:{peer}"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_until(self.healthy, "etcd to be healthy")
        except BaseException:
            self.stop()
            raise

    def healthy(self):
        if self.process.poll() is not None:
            raise AssertionError(f"etcd exited: {self.log()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://{self.endpoint}/health", timeout=2) as answer:
                return json.load(answer).get("health") == "true"
        except OSError:
            return False

    def store_url(self, prefix="/gantry/"):
        return f"etcd://{self.endpoint}{prefix.rstrip('/')}"

    def pause(self):
        """SIGSTOP: connections stay open but nothing answers, as behind a partition."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self):
        os.kill(self.process.pid, signal.SIGCONT)

    def log(self):
        with open(os.path.join(self.dir, "etcd.log"), errors="replace") as f:
            return f.read()

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
