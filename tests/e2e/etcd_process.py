"""A real etcd (Debian's etcd-server, /usr/bin/etcd) for the end-to-end tests:
one member on free loopback ports, its data in a temporary directory, ready
once its /health says so, killed on stop().

secure=True: etcd serves https with a certificate for 127.0.0.1 from a CA made
here with the openssl CLI, asks every client for a certificate that CA signed
(--client-cert-auth), and has its authentication on, with a user for the hub
(made through the JSON gateway, as etcdctl would). store_args() then gives the
hub every flag it needs."""

import base64
import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import urllib.request

from gantry_harness import free_port, wait_until

USER = "gantry-hub"
PASSWORD = "e2e-hub-secret"
ROOT_PASSWORD = "e2e-root-secret"


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certificates(directory):
    """ca.crt; etcd.crt for 127.0.0.1 (clientAuth too: etcd's gateway dials etcd's own
    gRPC server with it); hub.crt without a CommonName (once auth is on, etcd refuses
    gateway requests from a client certificate with one); other-ca.crt, which signed neither."""
    for ca in ("ca", "other-ca"):
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-days", "2", "-subj", f"/CN=e2e-{ca}", "-keyout", f"{ca}.key", "-out", f"{ca}.crt",
                 cwd=directory)
    for name, subject, extensions in (
            ("etcd", "/CN=etcd", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n"),
            ("hub", "/O=gantry-hub", "extendedKeyUsage=clientAuth\n")):
        _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", subject,
                 "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=directory)
        with open(os.path.join(directory, f"{name}.ext"), "w") as f:
            f.write(extensions)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                 "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.crt", cwd=directory)


class EtcdProcess:
    def __init__(self, secure=False):
        self.dir = tempfile.mkdtemp(prefix="gantry-e2e-etcd-")
        self.secure = secure
        self.port = free_port()
        peer = free_port()
        self.endpoint = f"127.0.0.1:{self.port}"
        scheme = "https" if secure else "http"
        self.url = f"{scheme}://{self.endpoint}"
        tls_args = []
        self.context = None
        if secure:
            self.pki = os.path.join(self.dir, "pki")
            os.makedirs(self.pki)
            make_certificates(self.pki)
            tls_args = ["--cert-file", self.file("etcd.crt"), "--key-file", self.file("etcd.key"),
                        "--trusted-ca-file", self.file("ca.crt"), "--client-cert-auth"]
            self.context = ssl.create_default_context(cafile=self.file("ca.crt"))
            self.context.load_cert_chain(self.file("hub.crt"), self.file("hub.key"))
            self.password_file = os.path.join(self.dir, "password")
            with open(self.password_file, "w") as f:
                f.write(PASSWORD + "\n")
        with open(os.path.join(self.dir, "etcd.log"), "ab") as log:
            self.process = subprocess.Popen(
                ["etcd", "--name", "e2e", "--data-dir", os.path.join(self.dir, "data"),
                 "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
                 "--listen-peer-urls", f"http://127.0.0.1:{peer}",
                 "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
                 "--initial-cluster", f"e2e=http://127.0.0.1:{peer}", *tls_args],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_until(self.healthy, "etcd to be healthy")
            if secure:
                self.enable_auth()
        except BaseException:
            self.stop()
            raise

    def file(self, name):
        """A file of the test PKI (secure only)."""
        return os.path.join(self.pki, name)

    def healthy(self):
        if self.process.poll() is not None:
            raise AssertionError(f"etcd exited: {self.log()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=2, context=self.context) as answer:
                return json.load(answer).get("health") == "true"
        except OSError:
            return False

    def post(self, path, body, token=None):
        """One JSON gateway call; its answer."""
        request = urllib.request.Request(f"{self.url}{path}", data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        if token:
            request.add_header("Authorization", token)
        with urllib.request.urlopen(request, timeout=10, context=self.context) as answer:
            return json.load(answer)

    def enable_auth(self):
        """root (the root role) and USER, who may read and write every key; then auth on."""
        every_key = base64.b64encode(b"\0").decode()
        self.post("/v3/auth/user/add", {"name": "root", "password": ROOT_PASSWORD})
        self.post("/v3/auth/user/grant", {"user": "root", "role": "root"})
        self.post("/v3/auth/user/add", {"name": USER, "password": PASSWORD})
        self.post("/v3/auth/role/add", {"name": "gantry"})
        self.post("/v3/auth/role/grant", {"name": "gantry", "perm": {
            "permType": "READWRITE", "key": every_key, "range_end": every_key}})
        self.post("/v3/auth/user/grant", {"user": USER, "role": "gantry"})
        self.post("/v3/auth/enable", {})

    def store_url(self, prefix="/gantry/"):
        return f"etcd://{self.endpoint}{prefix.rstrip('/')}"

    def tls_args(self):
        """The hub's TLS flags for this etcd (none unless secure)."""
        if not self.secure:
            return []
        return ["--store-cacert", self.file("ca.crt"), "--store-cert", self.file("hub.crt"),
                "--store-key", self.file("hub.key")]

    def auth_args(self):
        """The hub's credentials for this etcd (none unless secure)."""
        if not self.secure:
            return []
        return ["--store-user", USER, "--store-password-file", self.password_file]

    def store_args(self, prefix="/gantry/"):
        """--store and, when secure, every flag a hub needs to reach it."""
        return ["--store", self.store_url(prefix), *self.tls_args(), *self.auth_args()]

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
