"""Issue 31: the history test of issue 28 (job_history_test.py) on the etcd
store. A real etcd (etcd_process.py) keeps the ended jobs: they stay listed and
described across kill -9 restarts until deleted, their ttl or --keep-finished."""

import unittest

import job_history_test
from etcd_process import EtcdProcess


class JobHistoryOnEtcd(job_history_test.JobHistory):
    def store_args(self):
        return ["--store", self.etcd.store_url()]

    def setUp(self):
        self.etcd = EtcdProcess()
        self.addCleanup(self.etcd.stop)  # after the hubs' cleanups: cleanups run last first


if __name__ == "__main__":
    # Only this class: the SQLite case, imported with its module, runs as e2e_job_history.
    unittest.main(defaultTest="JobHistoryOnEtcd")
