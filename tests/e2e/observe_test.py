"""Acceptance (issue 30, events, watch, logs): a real hub and a real agent
(process executor). `gantryctl get jobs -w` sees a job go Pending -> Running ->
Completed in that order, pushed by the hub; `get events` tells what happened
to it, in order, with the placement's scores; `logs -f` prints what a running
replica prints as it prints it and ends when the replica ends."""

import json
import os
import unittest

from gantry_harness import Cluster, Streamed, job_yaml, wait_until, waiting_command

GPU = "nvidia.com/gpu"


class Observe(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)  # runs even when setUp fails
        self.marks = os.path.join(self.gantry.workdir, "marks")
        os.makedirs(self.marks)
        os.chmod(self.marks, 0o777)  # the replicas run as nobody (--run-as) and write here
        self.gantry.start_agent("east", "east.yaml", executor="process")  # 4 nodes x 4 GPUs
        self.gantry.wait_ready_clusters(1)

    def release(self, name):
        open(os.path.join(self.marks, f"{name}.release"), "w").close()

    def submit_waiting(self, name, replicas, gpus):
        self.gantry.submit(job_yaml(name, [("worker", replicas, {"cpu": 1, GPU: gpus},
                                            waiting_command(self.marks, name), None)]))

    def phase(self, name):
        return self.gantry.job(name)["phase"]

    def test_watch_sees_a_job_go_pending_running_completed_and_events_tell_why(self):
        # Every GPU taken, so the observed job has to wait.
        self.submit_waiting("blocker", 4, 4)
        wait_until(lambda: self.phase("blocker") == "Running", "the blocker to run")

        watch = Streamed(self.gantry, "get", "jobs", "-w")
        self.addCleanup(watch.stop)
        watch.wait_for(lambda line: line.startswith("blocker "), "the watch's first list")
        self.assertTrue(watch.seen[0].startswith("NAME "), watch.seen)
        events = Streamed(self.gantry, "get", "events", "--job", "observed", "-w", "-o", "json")
        self.addCleanup(events.stop)

        self.submit_waiting("observed", 1, 4)
        watch.wait_for(lambda line: line.startswith("observed ") and " Pending " in line,
                       "the watch to show observed pending")
        self.release("blocker")
        watch.wait_for(lambda line: line.startswith("observed ") and " Running " in line,
                       "the watch to show observed running")
        self.release("observed")
        watch.wait_for(lambda line: line.startswith("observed ") and " Completed " in line,
                       "the watch to show observed completed")

        # Each row the hub pushed for it, in order: never back to an earlier phase.
        phases = [line.split()[2] for line in watch.seen if line.startswith("observed ")]
        self.assertEqual([p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p],
                         ["Pending", "Running", "Completed"], watch.seen)
        self.assertEqual(sum(line.startswith("NAME ") for line in watch.seen), 1, "one header")

        listed = json.loads(self.gantry.ctl("get", "events", "--job", "observed", "-o", "json").stdout)
        messages = [event["message"] for event in listed]
        self.assertEqual(messages[0], "submitted", messages)
        self.assertRegex(messages[1], r"^waiting: not enough free capacity: needs 4 nvidia.com/gpu")
        self.assertRegex(messages[2], r"^dispatched to east \(worker x1\); scores: east -?\d+$")
        self.assertEqual(messages[3:], ["admitted by east; committed", "Completed on east"])
        self.assertTrue(all(event["job"] == "observed" and event["queue"] == "default" for event in listed))
        times = [event["time"] for event in listed]
        self.assertEqual(times, sorted(times))

        # The watched events arrived as they happened, the same ones in the same order.
        events.wait_for(lambda line: "Completed on east" in line, "the events watch to see the end")
        streamed = "\n".join(events.seen)
        positions = [streamed.find(json.dumps(message)) for message in messages]
        self.assertNotIn(-1, positions, streamed)
        self.assertEqual(positions, sorted(positions), streamed)

        # Across jobs, oldest first; --since leaves out what is older.
        every = json.loads(self.gantry.ctl("get", "events", "-o", "json").stdout)
        self.assertEqual({event["job"] for event in every}, {"blocker", "observed"})
        self.assertEqual([e["time"] for e in every], sorted(e["time"] for e in every))
        table = self.gantry.ctl("get", "events").stdout.splitlines()
        self.assertEqual(table[0].split(), ["TIME", "JOB", "QUEUE", "EVENT"])
        self.assertEqual(len(table), len(every) + 1)
        recent = self.gantry.ctl("get", "events", "--since", "1ms", check=False)
        self.assertEqual(recent.returncode, 0, recent.stderr)
        self.assertLess(len(recent.stdout.splitlines()), len(table))

    def test_logs_follow_prints_what_a_running_replica_prints_and_ends_with_it(self):
        release = os.path.join(self.marks, "talker.release")
        script = ("for i in 1 2 3; do echo line $i; done; "
                  f"while [ ! -e {release} ]; do sleep 0.05; done; echo last line; echo oops >&2")
        self.gantry.submit(job_yaml("talker", [("worker", 2, {"cpu": 1}, ["sh", "-c", script], None)]))
        wait_until(lambda: self.phase("talker") == "Running", "talker to run")
        # Running says the gang has started, not that this replica's shell has
        # written yet: until then the agent answers "has not written a log
        # yet" (as kubectl logs does for a container still waiting), so the
        # follow starts once the replica has something to show.
        wait_until(lambda: "line 1" in self.gantry.ctl("logs", "job", "talker", "--replica", "1",
                                                     check=False).stdout,
                   "replica 1 to write its first line")

        follow = Streamed(self.gantry, "logs", "job", "talker", "--replica", "1", "-f")
        self.addCleanup(follow.stop)
        follow.wait_for(lambda line: line == "line 3", "the first lines while it runs")
        self.assertEqual(follow.process.poll(), None, "still following while the replica runs")
        self.release("talker")
        self.assertEqual(follow.process.wait(timeout=60), 0)
        follow.stop()
        self.assertEqual(follow.seen, ["line 1", "line 2", "line 3", "last line", "oops"])

        wait_until(lambda: self.phase("talker") == "Completed", "talker to complete")
        # After its end too, from the record the store keeps; --tail keeps the last lines.
        tail = self.gantry.ctl("logs", "job", "talker", "--tail", "2").stdout
        self.assertEqual(tail, "last line\noops\n")

        missing = self.gantry.ctl("logs", "job", "talker", "--replica", "2", check=False)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("task worker has 2 replica(s) placed, numbered from 0: there is no replica 2",
                      missing.stderr)
        unknown = self.gantry.ctl("logs", "job", "talker", "--task", "ps", check=False)
        self.assertIn('has no task "ps" (its tasks: worker)', unknown.stderr)
        nothing = self.gantry.ctl("logs", "job", "nobody", check=False)
        self.assertEqual((nothing.returncode, nothing.stderr), (1, 'error: job "nobody" not found\n'))


if __name__ == "__main__":
    unittest.main(verbosity=2)
