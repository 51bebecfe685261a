"""Issue 31, failover under load: two hubs on one real etcd (etcd_process.py),
a load generator submitting through gantryctl. The first hub holds the store;
the second waits for it (actors/etcd_writer_claim.hpp) without binding its
sockets. The first is killed with kill -9: once its lease lapses the second
claims the store, reads every job from etcd, binds the same addresses, and
the agents and gantryctl carry on with it. Every acknowledged job exists once
and completes, none ran twice (each replica's run log and its exclusive lock,
as in hub_crash_test.py), and the old hub, restarted, waits as the standby.

Partition: etcd stops answering (SIGSTOP); the hub that holds the store
stops by itself (exit status 3) before its lease could lapse, and the waiting
hub takes over once etcd answers again.

Agents keep production's lease (30 s; they fence their runs after two thirds
of it): the handover (the lease's 10 s, then the standby's start) fits inside
it, so the running replicas are taken back, not stopped."""

import json
import os
import signal
import subprocess
import time
import unittest

from etcd_process import EtcdProcess
from gantry_harness import BIN_DIR, SOURCE_DIR, Cluster, free_port, http_get, job_yaml, wait_until
from hub_crash_test import Submitter, assert_completed_once

JOBS = int(os.environ.get("GANTRY_FAILOVER_JOBS", "1500"))
CLUSTERS = [f"failover-{i}" for i in range(3)]


class HubFailover(unittest.TestCase):
    def setUp(self):
        self.etcd = EtcdProcess()
        self.addCleanup(self.etcd.stop)
        self.gantry = Cluster(agent_lease_ms=30000, lost_grace_ms=120000,
                              hub_args=["--recovery-grace-ms", "1000",
                                        "--store", self.etcd.store_url()])
        self.addCleanup(self.gantry.close)
        self.marks = os.path.join(self.gantry.workdir, "marks")
        os.makedirs(self.marks)
        os.chmod(self.marks, 0o777)  # the replicas run as nobody (--run-as) and write here
        inventory = os.path.join(SOURCE_DIR, "examples", "inventories", "east.yaml")
        for cluster in CLUSTERS:
            self.gantry.start_agent(cluster, inventory, executor="process", extra_args=("--cluster", cluster))
        self.gantry.wait_ready_clusters(len(CLUSTERS))

    def start_standby(self, name, state_dir):
        """A hub on the same store and addresses; returns once it says it waits."""
        self.gantry._spawn(name, self.gantry.hub_argv(state_dir))
        wait_until(lambda: "is held by" in self.gantry.log(name), f"{name} to wait for the store")

    def test_the_standby_takes_over_and_every_acknowledged_job_completes_once(self):
        self.start_standby("hub-b", os.path.join(self.gantry.workdir, "state-b"))
        submitter = Submitter(self.gantry, self.marks, JOBS)
        submitter.start()
        wait_until(lambda: len(submitter.acknowledged) >= JOBS // 3, "a third of the jobs acknowledged",
                   deadline_s=300)

        killed = time.monotonic()
        self.gantry.kill("hub")
        wait_until(lambda: self.gantry.ctl("get", "clusters", check=False).returncode == 0,
                   "the standby to answer", deadline_s=120, interval_s=0.2)
        print(f"the standby answered {time.monotonic() - killed:.1f} s after the first hub was killed")
        self.assertIn("re-queueing", self.gantry.log("hub-b"))
        self.gantry.processes["hub"] = self.gantry.processes.pop("hub-b")
        self.gantry.wait_ready_clusters(len(CLUSTERS))

        submitter.join()
        acknowledged = set(submitter.acknowledged)
        self.assertEqual(len(submitter.acknowledged), len(acknowledged))
        print(f"{len(acknowledged)} of {JOBS} submissions acknowledged; "
              f"{submitter.failures} submit batches cut by the handover")

        assert_completed_once(self, self.gantry, self.marks, acknowledged)

        # The first hub, restarted on its own state, is now the one that waits.
        self.start_standby("hub-a", self.gantry.state_dir)
        self.assertIn("is held by", self.gantry.log("hub-a"))


    def test_a_hub_cut_off_from_etcd_stops_and_the_standby_takes_over(self):
        """Partition: etcd stops answering (SIGSTOP). The hub cannot renew its lease and
        stops (exit status 3) before the lease could lapse at etcd; once etcd answers
        again, the lease lapses and the waiting hub takes over."""
        self.start_standby("hub-b", os.path.join(self.gantry.workdir, "state-b"))
        submitted = self.gantry.ctl("submit", "-f", "-", input_text=job_yaml(
            "before-partition", [("worker", 1, {"cpu": 1}, ["sleep", "0.2"], None)])).stdout.split()
        self.assertEqual(submitted, ["before-partition"])
        self.etcd.pause()
        try:
            hub = self.gantry.processes.pop("hub")
            self.assertEqual(hub.wait(timeout=120), 3)
        finally:
            self.etcd.resume()
        self.assertIn("is no longer this hub's", self.gantry.log("hub"))
        wait_until(lambda: self.gantry.ctl("get", "clusters", check=False).returncode == 0,
                   "the standby to answer", deadline_s=120, interval_s=0.2)
        self.gantry.processes["hub"] = self.gantry.processes.pop("hub-b")
        wait_until(lambda: {j["name"]: j["phase"] for j in self.gantry.get("jobs")}.get("before-partition")
                   == "Completed", "the job submitted before the partition to complete")


    def test_agents_and_gantryctl_given_both_hubs_follow_the_one_that_holds_the_store(self):
        """Hubs on other addresses: an agent given --hub A,B and gantryctl given --hub A,B (or
        GANTRY_HUB) reach whichever hub holds the store, before and after a failover, without
        being told which."""
        other_admin = f"tcp://127.0.0.1:{free_port()}"
        other_agents = f"tcp://127.0.0.1:{free_port()}"
        argv = self.gantry.hub_argv(os.path.join(self.gantry.workdir, "state-b"))
        argv[argv.index("--admin") + 1] = other_admin
        argv[argv.index("--agents") + 1] = other_agents
        self.gantry._spawn("hub-b", argv)
        wait_until(lambda: "is held by" in self.gantry.log("hub-b"), "hub-b to wait for the store")
        first_agents = self.gantry.agents_endpoint
        self.gantry.agents_endpoint = f"{other_agents},{first_agents}"  # the agent's --hub
        try:
            self.gantry.start_agent("both", "east.yaml", executor="process")
        finally:
            self.gantry.agents_endpoint = first_agents
        self.gantry.wait_ready_clusters(len(CLUSTERS) + 1)
        both = f"{other_admin},{self.gantry.admin_endpoint}"

        def ctl(*args, input_text=None):
            return subprocess.run([os.path.join(BIN_DIR, "gantryctl"), "--hub", both, *args],
                                  input=input_text, capture_output=True, text=True, timeout=60,
                                  env={**os.environ, **self.gantry.keys.ctl_env()})

        # Only the agent given both hubs may run it: the others reach the first hub alone,
        # and a job placed there would wait for them at hub-b (their --lost-grace).
        for cluster in CLUSTERS:
            cordoned = ctl("cordon", "cluster", cluster)
            self.assertIn("cordoned", cordoned.stdout, cordoned.stderr)
        submitted = ctl("submit", "-f", "-", input_text=job_yaml(
            "asked-through-both", [("worker", 1, {"cpu": 1}, ["sleep", "0.2"], None)]))
        self.assertEqual(submitted.stdout.split(), ["asked-through-both"], submitted.stderr)
        self.gantry.kill("hub")

        def at_the_standby(kind):
            result = ctl("get", kind, "-o", "json")
            return json.loads(result.stdout) if result.returncode == 0 else None

        wait_until(lambda: any(c["name"] == "both" and c["ready"] for c in at_the_standby("clusters") or []),
                   "the agent given both hubs to be ready at hub-b", deadline_s=120, interval_s=0.2)
        wait_until(lambda: [(j["name"], j["phase"]) for j in at_the_standby("jobs") or []]
                   == [("asked-through-both", "Completed")], "the job to complete", deadline_s=120)
        self.assertIn("re-queueing", self.gantry.log("hub-b"))
        self.assertIn(f"trying hub {other_agents} next", self.gantry.log("agent-both"))

    def test_a_standby_answers_not_leader_and_gantryctl_follows_it_to_the_leader(self):
        """A hub standing by serves /healthz but not /readyz, and answers gantryctl "not
        leader" with the leader's admin endpoint, which gantryctl follows; get hubs lists
        leader and standby, and after a failover the new leader. SIGTERM ends a standby."""
        other_admin = f"tcp://127.0.0.1:{free_port()}"
        http_port = free_port()
        state_b = os.path.join(self.gantry.workdir, "state-b")
        argv = self.gantry.hub_argv(state_b)
        argv[argv.index("--admin") + 1] = other_admin
        self.gantry._spawn("hub-b", [*argv, "--http-listen", f"127.0.0.1:{http_port}"])
        wait_until(lambda: "is held by" in self.gantry.log("hub-b"), "hub-b to wait for the store")

        def http(path, token_file=None):
            return http_get(http_port, path, token_file)

        wait_until(lambda: http("/healthz")[0] == 200, "the standby to serve /healthz")
        status, why = http("/readyz")
        self.assertEqual(status, 503)
        self.assertIn("not leader", why)
        self.assertIn(self.gantry.admin_endpoint, why)
        token = os.path.join(state_b, "metrics.token")
        self.assertIn("gantry_hub_leader 0", http("/metrics", token)[1])

        def ctl(hub, *args):
            return subprocess.run([os.path.join(BIN_DIR, "gantryctl"), "--hub", hub, *args],
                                  capture_output=True, text=True, timeout=60,
                                  env={**os.environ, **self.gantry.keys.ctl_env()})

        def hubs(at):
            result = ctl(at, "get", "hubs", "-o", "json")
            return json.loads(result.stdout) if result.returncode == 0 else []

        # Asked at the standby alone, gantryctl gets its answer from the leader.
        listed = ctl(other_admin, "get", "clusters", "-o", "json")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertEqual(sorted(c["name"] for c in json.loads(listed.stdout)), CLUSTERS)
        both = hubs(other_admin)
        self.assertEqual([(h["role"], h["admin"]) for h in both],
                         [("leader", self.gantry.admin_endpoint), ("standby", other_admin)])
        self.assertTrue(all(h["store"] == both[0]["store"] and h["store"].startswith("etcd ")
                            for h in both), both)
        self.assertGreater(both[0]["generation"], 0)
        self.assertEqual(both[1]["generation"], 0)
        table = ctl(self.gantry.admin_endpoint, "get", "hubs").stdout.splitlines()
        self.assertEqual(table[0].split(), ["NAME", "ROLE", "ADMIN", "STORE", "GENERATION", "AGE"])
        self.assertEqual([("leader" in row, "standby" in row) for row in table[1:]],
                         [(True, False), (False, True)])

        self.gantry.kill("hub")
        wait_until(lambda: [(h["role"], h["admin"]) for h in hubs(other_admin)]
                   == [("leader", other_admin)], "hub-b to lead alone", deadline_s=120, interval_s=0.2)
        wait_until(lambda: "gantry_hub_leader 1" in http("/metrics", token)[1],
                   "hub-b's own metrics", deadline_s=60)

        # The first hub, restarted, stands by; SIGTERM ends it cleanly.
        self.start_standby("hub-a", self.gantry.state_dir)
        self.gantry.processes["hub-a"].send_signal(signal.SIGTERM)
        self.assertEqual(self.gantry.processes["hub-a"].wait(timeout=60), 0)
        self.assertIn("received SIGTERM while standing by", self.gantry.log("hub-a"))
        self.gantry.processes["hub"] = self.gantry.processes.pop("hub-b")


if __name__ == "__main__":
    unittest.main()
