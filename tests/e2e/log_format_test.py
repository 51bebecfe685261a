"""Acceptance (issue 30, logs): a real hub and agent run with --log-format json write nothing but
JSON lines (ts RFC 3339 UTC with milliseconds, level, msg), and the lines of a job's dispatch, on
both sides, carry its job, cluster and dispatch id; lines about no job carry none."""

import json
import re
import signal
import unittest

from gantry_harness import Cluster, job_yaml, wait_until

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
LEVELS = {"trace", "debug", "info", "warning", "error", "critical"}
KEYS = {"ts", "level", "msg", "job", "cluster", "dispatch"}


class JsonLogLines(unittest.TestCase):
    def setUp(self):
        # debug: the hub's dispatch line is a debug one.
        self.gantry = Cluster(hub_args=["--log-format", "json", "--log-level", "debug"])
        self.addCleanup(self.gantry.close)
        self.gantry.start_agent("east", "east.yaml", extra_args=("--log-format", "json"))
        self.gantry.wait_ready_clusters(1)

    def stopped_logs(self):
        """Each process's log once it has stopped (its last lines included)."""
        for process in self.gantry.processes.values():
            process.send_signal(signal.SIGTERM)
        for process in self.gantry.processes.values():
            process.wait(timeout=20)
        return {name: self.gantry.log(name) for name in ("hub", "agent-east")}

    def json_lines(self, name, text):
        lines = []
        for number, line in enumerate(text.splitlines(), 1):
            try:
                entry = json.loads(line)
            except ValueError as error:
                self.fail(f"{name}.log line {number} is not JSON ({error}): {line!r}")
            self.assertIsInstance(entry, dict, f"{name}.log line {number}")
            self.assertEqual(list(entry)[:3], ["ts", "level", "msg"], f"{name}.log line {number}: {line}")
            self.assertLessEqual(set(entry), KEYS, f"{name}.log line {number}: {line}")
            self.assertRegex(entry["ts"], TIMESTAMP, f"{name}.log line {number}")
            self.assertIn(entry["level"], LEVELS, f"{name}.log line {number}")
            if "dispatch" in entry:  # a decimal string: ids use all 64 bits
                self.assertRegex(entry["dispatch"], r"^[0-9]+$", f"{name}.log line {number}")
            lines.append(entry)
        self.assertTrue(lines, f"{name}.log is empty")
        return lines

    def test_every_line_is_json_and_a_dispatch_names_its_job_and_cluster(self):
        self.gantry.submit(job_yaml("train", [("worker", 2, {"cpu": 1, "nvidia.com/gpu": 1}, None, None)],
                                    annotations={"gantry.io/sim-duration": "1"}))
        wait_until(lambda: self.gantry.job("train")["phase"] == "Completed", "the job to complete")
        logs = self.stopped_logs()
        hub = self.json_lines("hub", logs["hub"])
        agent = self.json_lines("agent-east", logs["agent-east"])

        def about_train(lines, words):
            found = [e for e in lines if e.get("job") == "train" and words in e["msg"]]
            self.assertTrue(found, f"no line with job=train saying {words!r}")
            return found[0]

        dispatched = about_train(hub, "dispatch")
        committed = about_train(hub, "committed on cluster(s) east")
        completed = about_train(hub, "Completed on cluster east")
        admitted = about_train(agent, "admitted")
        ended = about_train(agent, "Completed")
        dispatch = committed["dispatch"]
        self.assertIn(f"dispatch {dispatch} ", dispatched["msg"])
        for entry in (dispatched, committed, completed, admitted, ended):
            self.assertEqual((entry.get("cluster"), entry.get("dispatch")), ("east", dispatch), entry)
        # The agent's session lines name its cluster; the hub's own lines name nothing.
        self.assertTrue(all(e.get("cluster") == "east" for e in agent if "registered with hub" in e["msg"]))
        (started,) = [e for e in hub if e["msg"].startswith("hub epoch")]
        self.assertEqual(set(started), {"ts", "level", "msg"}, started)


if __name__ == "__main__":
    unittest.main()
