"""Acceptance (issue 28, hub state): damaged state is refused, never silently
emptied; one hub per state directory; a hub on a new, empty state does not
stop what a live agent runs; with the disk full, acknowledged writes are not
lost and job ends are kept until they can be written. Real hub, agent and
gantryctl processes; the damage is done to the files a killed hub left."""

import os
import shutil
import subprocess
import unittest

from gantry_harness import BIN_DIR, SOURCE_DIR, Cluster, free_port, job_yaml, wait_until, waiting_command


def pending_job(name):
    return job_yaml(name, [("worker", 1, {"cpu": 1}, ["true"], None)])


def hub_check(state_dir):
    return subprocess.run([os.path.join(BIN_DIR, "gantry-hub"), "--state", state_dir, "--check"],
                          capture_output=True, text=True, timeout=60)


class StateSafety(unittest.TestCase):
    def start(self, **kwargs):
        gantry = Cluster(**kwargs)
        self.addCleanup(gantry.close)
        return gantry

    def second_hub(self, gantry):
        """A hub on `gantry`'s state and keys but its own ports: its exit code and output."""
        result = subprocess.run([
            os.path.join(BIN_DIR, "gantry-hub"), "--state", gantry.state_dir,
            "--agents", f"tcp://127.0.0.1:{free_port()}", "--admin", f"tcp://127.0.0.1:{free_port()}",
            *gantry.keys.hub_args()], capture_output=True, text=True, timeout=60)
        return result.returncode, result.stdout + result.stderr

    def running_on_a_process_agent(self, gantry, names):
        """Starts a process agent for cluster east and runs waiting jobs `names` on it
        (each ends once its marks/<name>.release exists); returns the marks folder."""
        marks = os.path.join(gantry.workdir, "marks")
        os.makedirs(marks)
        os.chmod(marks, 0o777)  # the replicas run as nobody (--run-as) and write here
        gantry.start_agent("east", "east.yaml", executor="process")
        gantry.wait_ready_clusters(1)
        for name in names:
            gantry.submit(job_yaml(name, [("worker", 1, {"cpu": 1}, waiting_command(marks, name), None)]))
        for name in names:
            wait_until(lambda n=name: gantry.job(n)["phase"] == "Running", f"{name} to run")
        return marks

    def crashed_with_jobs(self, count):
        """A hub that accepted `count` jobs (no cluster runs them), then was killed."""
        gantry = self.start()
        for i in range(count):
            gantry.submit(pending_job(f"job-{i}"))
        gantry.kill("hub")
        return gantry

    def test_a_second_hub_on_the_same_state_refuses_and_names_the_first(self):
        gantry = self.start()
        code, output = self.second_hub(gantry)
        self.assertEqual(code, 1, output)
        self.assertIn(f"is in use by gantry-hub pid {gantry.processes['hub'].pid}", output)
        self.assertIn("hub.lock", output)
        self.assertEqual(len(gantry.get("jobs")), 0)  # the first one still serves
        self.assertIn("held by: gantry-hub pid", hub_check(gantry.state_dir).stdout)

    def test_a_killed_hubs_state_comes_back_whole_and_check_says_so(self):
        gantry = self.crashed_with_jobs(30)
        check = hub_check(gantry.state_dir)
        self.assertEqual(check.returncode, 0, check.stdout)
        self.assertIn("jobs: 30 (30 unfinished)", check.stdout)
        self.assertIn("integrity: ok", check.stdout)
        gantry.restart_hub()
        self.assertEqual(len(gantry.get("jobs")), 30)

    def test_a_wal_cut_in_half_is_refused_not_loaded_short(self):
        gantry = self.crashed_with_jobs(30)
        wal = os.path.join(gantry.state_dir, "gantry.db-wal")
        os.truncate(wal, os.path.getsize(wal) // 2)
        code, output = self.second_hub(gantry)
        self.assertEqual(code, 1, output)
        self.assertIn("gantry.db-wal", output)
        self.assertIn("frames were committed", output)
        check = hub_check(gantry.state_dir)
        self.assertEqual(check.returncode, 1, check.stdout)
        self.assertIn("damaged: ", check.stdout)

    def test_flipped_bytes_are_refused_not_loaded_empty(self):
        gantry = self.crashed_with_jobs(30)
        wal = os.path.join(gantry.state_dir, "gantry.db-wal")
        with open(wal, "r+b") as f:
            for i in range(200):
                f.seek(32 + 24 + 100 + i * 97)
                byte = f.read(1)
                f.seek(-1, os.SEEK_CUR)
                f.write(bytes([byte[0] ^ 0x5A]))
        code, output = self.second_hub(gantry)
        self.assertEqual(code, 1, output)
        self.assertIn("fails its checksum", output)

    def test_a_missing_database_is_refused_where_a_store_was_made(self):
        gantry = self.crashed_with_jobs(3)
        for name in ("gantry.db", "gantry.db-wal", "gantry.db-shm"):
            os.remove(os.path.join(gantry.state_dir, name))
        code, output = self.second_hub(gantry)
        self.assertEqual(code, 1, output)
        self.assertIn("gantry.db is missing", output)
        self.assertIn("state.id", output)

    def test_a_hub_on_an_empty_state_does_not_stop_what_an_agent_runs(self):
        gantry = self.start()
        names = [f"run-{i}" for i in range(4)]
        marks = self.running_on_a_process_agent(gantry, names)

        # The hub's state is lost: a new hub starts on an empty directory.
        gantry.kill("hub")
        shutil.rmtree(gantry.state_dir)
        gantry.restart_hub()
        wait_until(lambda: gantry.log("hub").count("held, not stopped") >= 4,
                   "the new hub to hold the agent's 4 runs")
        self.assertIn("gantryctl drain cluster east", gantry.log("hub"))
        # gantryctl shows them, and says how to stop them, with every get and describe.
        warned = gantry.ctl("get", "jobs").stderr
        self.assertIn("Warning: cluster east runs 4 dispatch(es) from before this hub's state was made",
                      warned)
        self.assertIn("`gantryctl drain cluster east` stops them", warned)
        self.assertIn("Warning: cluster east runs 4", gantry.ctl("describe", "cluster", "east").stderr)
        # Each runs on to its own end: nothing stopped them.
        for name in names:
            open(os.path.join(marks, f"{name}.release"), "w").close()
        for name in names:
            wait_until(lambda n=name: os.path.exists(os.path.join(marks, f"{n}.done")), f"{name} to end")
            with open(os.path.join(marks, f"{name}.starts")) as f:
                self.assertEqual(f.read().split(), ["started"])
        wait_until(lambda: gantry.log("hub").count("ended: Completed") >= 4, "the holds to be released")
        self.assertNotIn("Warning:", gantry.ctl("get", "clusters").stderr)

    def test_with_the_disk_full_ends_are_kept_until_they_can_be_written(self):
        mounted = []

        def small_file_system(workdir):
            state = os.path.join(workdir, "state")
            os.makedirs(state)
            if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", state],
                              capture_output=True).returncode == 0:
                mounted.append(state)

        gantry = self.start(prepare_workdir=small_file_system)
        if not mounted:
            self.skipTest("cannot mount a tmpfs here (needs root)")
        self.addCleanup(lambda: subprocess.run(["umount", "-l", mounted[0]]))
        names = [f"end-{i}" for i in range(3)]
        marks = self.running_on_a_process_agent(gantry, names)

        filler = os.path.join(gantry.state_dir, "filler")
        with open(filler, "wb") as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass  # full
        # A submission now is refused with the reason, not acknowledged and lost.
        refused = gantry.ctl("submit", "-f", "-", input_text=pending_job("refused"), check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("full", refused.stdout + refused.stderr)
        # A queue applied now is live, and says it is not stored yet; it is kept and retried.
        queue = gantry.ctl("apply", "-f", os.path.join(SOURCE_DIR, "examples", "queues", "research.yaml"),
                           check=False)
        self.assertNotEqual(queue.returncode, 0)
        self.assertIn("not stored yet", queue.stdout + queue.stderr)
        # The jobs end while nothing can be written: their ends are kept.
        for name in names:
            open(os.path.join(marks, f"{name}.release"), "w").close()
        for name in names:
            wait_until(lambda n=name: gantry.job(n)["phase"] == "Completed", f"{name} to complete")
        wait_until(lambda: "job store degraded" in gantry.log("hub"), "the hub to say it is degraded")
        # gantryctl says so too, with every get and describe.
        warned = gantry.ctl("get", "jobs").stderr
        self.assertIn("Warning: the job store is degraded: ", warned)
        self.assertIn("not stored yet", warned)
        self.assertIn("Warning: the job store is degraded: ",
                      gantry.ctl("describe", "job", names[0]).stderr)
        os.remove(filler)
        wait_until(lambda: "job store recovered" in gantry.log("hub"), "the kept writes to commit")
        self.assertNotIn("Warning:", gantry.ctl("get", "jobs").stderr)

        # A restart does not run the ended jobs again.
        gantry.restart_hub()
        gantry.wait_ready_clusters(1)
        self.assertIn("research", [q["name"] for q in gantry.get("queues")], "the kept queue was stored")
        listed = {job["name"]: job["phase"] for job in gantry.get("jobs")}
        self.assertNotIn("refused", listed)
        for name in names:
            self.assertEqual(listed.get(name, "Completed"), "Completed", f"{name} came back after its end")
        for name in names:
            with open(os.path.join(marks, f"{name}.starts")) as f:
                self.assertEqual(f.read().split(), ["started"])


if __name__ == "__main__":
    unittest.main()
