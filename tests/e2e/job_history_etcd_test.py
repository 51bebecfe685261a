"""Issue 31: the history test of issue 28 (job_history_test.py) on the etcd
store. A real etcd (etcd_process.py) keeps the ended jobs: they stay listed and
described across kill -9 restarts until deleted, their ttl or --keep-finished."""

import os
import socket
import subprocess
import unittest

import job_history_test
from etcd_process import EtcdProcess
from gantry_harness import BIN_DIR


class JobHistoryOnEtcd(job_history_test.JobHistory):
    def store_args(self):
        return ["--store", self.etcd.store_url()]

    def setUp(self):
        self.etcd = EtcdProcess()
        self.addCleanup(self.etcd.stop)  # after the hubs' cleanups: cleanups run last first


    def test_check_reads_the_etcd_store_while_its_hub_runs(self):
        """gantry-hub --store URL --check: the holder, the counts, every record read."""
        gantry = self.start()
        self.run_to_end(gantry, [("checked", ["true"], None)])
        result = subprocess.run([os.path.join(BIN_DIR, "gantry-hub"), "--store", self.etcd.store_url(),
                                 "--check"], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"held by: {socket.gethostname()} {gantry.state_dir}", result.stdout)
        self.assertIn("jobs: 1 (0 unfinished)", result.stdout)
        self.assertIn("records: every one read", result.stdout)


if __name__ == "__main__":
    # Only this class: the SQLite case, imported with its module, runs as e2e_job_history.
    unittest.main(defaultTest="JobHistoryOnEtcd")
