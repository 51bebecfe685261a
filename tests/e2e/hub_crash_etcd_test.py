"""Issue 31: the crash test of issue 28 (hub_crash_test.py) on the etcd store.
A real etcd (etcd_process.py) keeps the jobs; the hub, killed with kill -9 and
restarted on the same state directory, takes its own claim on the store back
at once (actors/etcd_writer_claim.hpp) and finds every acknowledged job there.
A fifth of the SQLite test's jobs: the kills, not the count, are the test."""

import unittest

import hub_crash_test
from etcd_process import EtcdProcess


class HubCrashOnEtcd(hub_crash_test.HubCrash):
    jobs = max(200, hub_crash_test.JOBS // 5)

    def store_args(self):
        return ["--store", self.etcd.store_url()]

    def setUp(self):
        self.etcd = EtcdProcess()
        self.addCleanup(self.etcd.stop)  # after the hub's cleanup: cleanups run last first
        super().setUp()


if __name__ == "__main__":
    # Only this class: the SQLite case, imported with its module, runs as e2e_hub_crash.
    unittest.main(defaultTest="HubCrashOnEtcd")
