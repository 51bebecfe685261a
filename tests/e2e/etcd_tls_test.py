"""Issue 31, "TLS and auth options as etcd has them": a real gantry-hub keeps its
jobs in an etcd that serves https only, asks for a client certificate
(--client-cert-auth) and has its authentication on (etcd_process.py,
secure=True). Given --store-cacert, --store-cert, --store-key, --store-user and
--store-password-file, the hub claims the store, runs a job to Completed on a
process agent and keeps it there; `gantry-hub --store ... --check` reads it
with the same flags and is refused, saying why, without them. A hub on a plain
etcd says once, loudly, that its store is exposed."""

import os
import socket
import subprocess
import unittest

from etcd_process import PASSWORD, EtcdProcess
from gantry_harness import BIN_DIR, Cluster, job_yaml, wait_until


class EtcdTlsAndAuth(unittest.TestCase):
    def setUp(self):
        self.etcd = EtcdProcess(secure=True)
        self.addCleanup(self.etcd.stop)  # after the hub's cleanup: cleanups run last first

    def check(self, *flags):
        return subprocess.run([os.path.join(BIN_DIR, "gantry-hub"), "--store", self.etcd.store_url(), *flags,
                               "--check"], capture_output=True, text=True, timeout=60)

    def test_a_hub_on_a_secured_etcd_runs_a_job_and_check_needs_the_same_flags(self):
        gantry = Cluster(hub_args=self.etcd.store_args())
        self.addCleanup(gantry.close)
        gantry.start_agent("east", "east.yaml", executor="process")
        gantry.wait_ready_clusters(1)
        gantry.submit(job_yaml("secured", [("worker", 1, {"cpu": 1, "nvidia.com/gpu": 1}, ["true"], None)]))
        wait_until(lambda: gantry.job("secured")["phase"] == "Completed", "the job to complete")
        hub_log = gantry.log("hub")
        self.assertNotIn("INSECURE", hub_log)
        self.assertNotIn(PASSWORD, hub_log)

        result = self.check(*self.etcd.tls_args(), *self.etcd.auth_args())
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"held by: {socket.gethostname()} {gantry.state_dir}", result.stdout)
        self.assertIn("jobs: 1 (0 unfinished)", result.stdout)
        self.assertIn("records: every one read", result.stdout)

        # Plain http to an https-only etcd: etcd drops the request unanswered.
        plain = self.check()
        self.assertEqual(plain.returncode, 1, plain.stdout + plain.stderr)
        self.assertIn("damaged or unreachable: etcd endpoint http://", plain.stdout)
        self.assertIn("if it serves https only", plain.stdout)
        # https, but no certificate of the hub's: etcd ends the connection.
        no_certificate = self.check("--store-cacert", self.etcd.file("ca.crt"), *self.etcd.auth_args())
        self.assertEqual(no_certificate.returncode, 1, no_certificate.stdout + no_certificate.stderr)
        self.assertIn("damaged or unreachable: etcd endpoint https://", no_certificate.stdout)
        # Another CA: the hub does not trust etcd's certificate.
        other_ca = self.check("--store-cacert", self.etcd.file("other-ca.crt"), "--store-cert",
                              self.etcd.file("hub.crt"), "--store-key", self.etcd.file("hub.key"),
                              *self.etcd.auth_args())
        self.assertEqual(other_ca.returncode, 1, other_ca.stdout + other_ca.stderr)
        self.assertIn("certificate verify failed", other_ca.stdout)
        # The certificate but no credentials: etcd's authentication refuses.
        anonymous = self.check(*self.etcd.tls_args())
        self.assertEqual(anonymous.returncode, 1, anonymous.stdout + anonymous.stderr)
        self.assertIn("user name is empty", anonymous.stdout)
        # A wrong password, named as such.
        wrong = os.path.join(gantry.workdir, "wrong-password")
        with open(wrong, "w") as f:
            f.write("guess\n")
        refused = self.check(*self.etcd.tls_args(), "--store-user", "gantry-hub", "--store-password-file", wrong)
        self.assertEqual(refused.returncode, 1, refused.stdout + refused.stderr)
        self.assertIn("authentication failed, invalid user ID or password", refused.stdout)
        self.assertIn('etcd user "gantry-hub"', refused.stdout)


    def test_a_hub_on_a_plaintext_unauthenticated_etcd_warns_once_naming_the_flags(self):
        plain = EtcdProcess()
        self.addCleanup(plain.stop)
        gantry = Cluster(hub_args=plain.store_args())
        self.addCleanup(gantry.close)
        hub_log = gantry.log("hub")
        self.assertEqual(hub_log.count("INSECURE: the job store"), 1, hub_log)
        self.assertIn("is reached over plaintext http and unauthenticated", hub_log)
        for flag in ("--store-cacert", "--store-cert", "--store-key", "--store-user", "--store-password-file"):
            self.assertIn(flag, hub_log)


if __name__ == "__main__":
    unittest.main()
