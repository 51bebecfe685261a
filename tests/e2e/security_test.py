"""Keys and roles end to end (docs/security.md): a real hub with CurveZMQ keys and an access list,
real agents and real gantryctl processes. An unknown key is refused at the handshake; an agent's
key speaks only for its own cluster; a viewer reads, an operator submits and cancels only its own
jobs, an admin does the rest; a key taken out of the list is refused after SIGHUP; every action is
one line of the audit log."""

import json
import os
import unittest

from gantry_harness import Cluster, job_yaml, wait_until


class Security(unittest.TestCase):
    def setUp(self):
        self.gantry = Cluster()
        self.addCleanup(self.gantry.close)
        self.gantry.start_agent("east", "east.yaml")
        self.gantry.wait_ready_clusters(1)
        for name, role in (("victor", "viewer"), ("alice", "operator"), ("bob", "operator")):
            self.gantry.keys.add_admin(name, role)
        self.gantry.reload_access()

    def ctl_as(self, key, *args, input_text=None):
        return self.gantry.ctl(*args, input_text=input_text, check=False, key=key)

    def audit(self):
        path = os.path.join(self.gantry.workdir, "state", "audit.log")
        with open(path) as log:
            return [json.loads(line) for line in log]

    def test_an_unlisted_key_is_refused_at_the_handshake(self):
        self.gantry.keys.generate("mallory")  # a keypair the hub does not list
        result = self.ctl_as("mallory", "get", "jobs")
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("refused", result.stderr)

    def test_an_agent_key_speaks_only_for_its_own_cluster(self):
        # east's key, with --cluster west: the hub refuses the Hello and never lists west.
        self.gantry._spawn("agent-rogue", [
            os.path.join(os.environ["GANTRY_BIN_DIR"], "gantry-agent"), "--hub",
            self.gantry.agents_endpoint, "--cluster", "west", "--inventory",
            os.path.join(os.environ["GANTRY_SOURCE_DIR"], "examples", "inventories", "west.yaml"),
            "--executor", "sim", *self.gantry.keys.agent_args("east", "agent-east")])
        wait_until(lambda: 'key "agent-east" may not speak for cluster "west"' in self.gantry.log("hub"),
                   "the hub to refuse east's key speaking for west")
        names = [c["name"] for c in self.gantry.get("clusters")]
        self.assertEqual(names, ["east"])
        self.assertTrue(self.gantry.get("clusters")[0]["ready"])

    def test_roles(self):
        viewer = self.ctl_as("victor", "submit", "-f", "-", input_text=job_yaml("v", [("main", 1, {"cpu": "1"}, None, None)]))
        self.assertEqual(viewer.returncode, 1, viewer.stdout + viewer.stderr)
        self.assertIn('key "victor" (viewer) may not submit job: needs role operator', viewer.stderr)
        self.assertEqual(self.ctl_as("victor", "get", "jobs").returncode, 0)

        submitted = self.ctl_as("alice", "submit", "-f", "-", input_text=job_yaml("train", [("main", 1, {"cpu": "1"}, None, None)]))
        self.assertEqual(submitted.returncode, 0, submitted.stderr)
        described = self.ctl_as("victor", "describe", "job", "train").stdout
        self.assertRegex(described, r"Submitted By:\s+alice")

        bob = self.ctl_as("bob", "cancel", "job", "train")
        self.assertNotEqual(bob.returncode, 0)
        self.assertIn('was submitted by "alice"', bob.stdout + bob.stderr)
        drain = self.ctl_as("alice", "drain", "cluster", "east")
        self.assertEqual(drain.returncode, 1, drain.stdout + drain.stderr)
        self.assertEqual(self.ctl_as("alice", "cancel", "job", "train").returncode, 0)

        actions = [(e["key"], e["action"], e["name"], e["result"]) for e in self.audit()]
        self.assertEqual(actions, [
            ("victor", "submit", "", "forbidden"),
            ("alice", "submit", "train", "ok"),
            ("bob", "cancel", "train", "refused"),
            ("alice", "drain", "east", "forbidden"),
            ("alice", "cancel", "train", "ok"),
        ])

    def test_a_key_taken_out_of_the_list_is_refused_after_a_reload(self):
        self.assertEqual(self.ctl_as("victor", "get", "jobs").returncode, 0)
        self.gantry.keys.remove("victor")
        self.gantry.reload_access()
        refused = self.ctl_as("victor", "get", "jobs")
        self.assertNotEqual(refused.returncode, 0)
        # The agent's session is not disturbed by the reload.
        self.assertTrue(self.gantry.get("clusters")[0]["ready"])


if __name__ == "__main__":
    unittest.main()
