"""Acceptance: the README's tour runs as written after scripts/up.sh. The test
starts scripts/up.sh (serving, with this build's binaries, its state in a
temporary folder and free ports), waits for it to say it serves, then runs
every line of the README's tour block in the checkout, as a user would paste
them, and checks what each says it does. Ctrl-C then stops up.sh and every
process it started."""

import json
import os
import signal
import socket
import subprocess
import tempfile
import threading
import unittest

from gantry_harness import BIN_DIR, SOURCE_DIR, processes_with, wait_until


def tour_lines():
    """The README's tour block: each command line without its comment."""
    with open(os.path.join(SOURCE_DIR, "README.md"), encoding="utf-8") as readme:
        text = readme.read()
    section = text[text.index("## A tour of gantryctl"):]
    block = section[section.index("```sh\n") + len("```sh\n"):]
    block = block[:block.index("```")]
    return [line.split(" # ")[0].rstrip() for line in block.splitlines() if line.strip()]


def three_free_ports():
    """N such that N, N+1 and N+2 are free on loopback."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = probe.getsockname()[1]
        if base + 2 > 65535:
            continue
        try:
            for port in (base, base + 1, base + 2):
                with socket.socket() as check:
                    check.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue


class UpScript:
    """scripts/up.sh serving, with its output lines as they come."""

    def __init__(self, scratch, port):
        self.state = os.path.join(scratch, "var")
        self.env = {**os.environ, "GANTRY_BIN_DIR": BIN_DIR, "GANTRY_UP_STATE": self.state,
                    "GANTRY_UP_PORT": str(port), "GANTRY_CONFIG_DIR": os.path.join(scratch, "config")}
        self.process = subprocess.Popen(["bash", "scripts/up.sh"], cwd=SOURCE_DIR, env=self.env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.output = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.output.append(line.rstrip("\n"))

    def serving(self):
        if self.process.poll() is not None:
            raise AssertionError("scripts/up.sh ended before serving:\n" + "\n".join(self.output))
        return any(line.startswith("serving;") for line in self.output)

    def interrupt(self):
        """Ctrl-C: up.sh stops what it started and exits."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        status = self.process.wait(timeout=60)
        self.reader.join(timeout=10)
        self.process.stdout.close()
        return status


class ReadmeTourTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="gantry-tour-")
        # As root, up.sh's east agent runs replicas as nobody, who must reach the state.
        os.chmod(self.scratch, 0o755)
        self.port = three_free_ports()
        self.up = UpScript(self.scratch, self.port)
        self.addCleanup(self.up.interrupt)
        wait_until(self.up.serving, "scripts/up.sh to serve", deadline_s=300)
        self.env = {**self.up.env, "PATH": BIN_DIR + os.pathsep + os.environ["PATH"],
                    "GANTRY_HUB": f"tcp://127.0.0.1:{self.port + 1}"}

    def shell(self, line):
        return subprocess.run(["bash", "-c", line], cwd=SOURCE_DIR, env=self.env, capture_output=True,
                              text=True, timeout=300)

    def ok(self, line):
        result = self.shell(line)
        self.assertEqual(result.returncode, 0, f"{line}\nstdout: {result.stdout}\nstderr: {result.stderr}")
        return result.stdout

    def watch_until_first_change_then_interrupt(self, line):
        """`get jobs -w`: the list comes, then Ctrl-C ends it."""
        process = subprocess.Popen(["bash", "-c", "exec " + line], cwd=SOURCE_DIR, env=self.env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        header = process.stdout.readline()
        self.assertTrue(header.startswith("NAME"), header)
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()
        self.assertIn(process.returncode, (0, 130, -signal.SIGINT), "Ctrl-C ends the watch")

    def phase(self, job):
        return json.loads(self.ok(f"gantryctl get job {job} -o json"))["phase"]

    def test_every_line_of_the_tour_does_what_it_says(self):
        lines = tour_lines()
        self.assertEqual(lines[0], 'export PATH="$PWD/build/bin:$PATH"')
        with open(os.path.join(SOURCE_DIR, "scripts", "up.sh"), encoding="utf-8") as up:
            self.assertIn("bin=build/bin", up.read(), "the tour's PATH is where up.sh builds")
        ran = 1
        for line in lines[1:]:
            ran += 1
            if line.endswith(" -w"):
                self.watch_until_first_change_then_interrupt(line)
            elif "--hub tcp://10.0.0.5:7801" in line:
                result = self.shell(line)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertTrue(result.stderr.startswith("error: hub at tcp://10.0.0.5:7801 did not answer"),
                                result.stderr)
            else:
                self.check(line, self.ok(line))
        self.assertEqual(ran, len(lines))

    def check(self, line, out):
        """What the tour's comment says the line does."""
        if line == "gantryctl submit -f examples/tour/tour-train.yaml":
            self.assertEqual(out, "tour-train\n")
        elif line == "gantryctl submit -f examples/tour/tour-long-run.yaml":
            self.assertEqual(out, "tour-long-run\n")
        elif line == "gantryctl get clusters":
            self.assertEqual([row.split()[0] for row in out.splitlines()[1:]], ["east", "gpu8", "west"])
        elif line == "gantryctl get jobs":
            self.assertIn("tour-train", out)
        elif line.startswith("gantryctl get job tour-train -o yaml"):
            self.assertIn("name: tour-train", out)
        elif line.startswith("gantryctl describe job tour-train"):
            self.assertIn("tour-train", out)
        elif line.startswith("gantryctl get events --job tour-train"):
            self.assertRegex(out, r"tour-train +default +submitted")
        elif line.startswith("gantryctl logs job tour-train"):
            self.assertIn("step 3 loss 2.1", out)
        elif line.startswith("gantryctl wait job tour-long-run"):
            self.assertEqual(self.phase("tour-long-run"), "Running")
        elif line.startswith("gantryctl cancel job tour-long-run"):
            self.assertEqual(out, "job/tour-long-run cancelled\n")
            wait_until(lambda: self.phase("tour-long-run") == "Aborted", "the job to be Aborted")
            wait_until(lambda: not processes_with("echo tour-long-run started"),
                       "the cancelled job's process to end")
        elif line.startswith("gantryctl cordon cluster east"):
            self.assertEqual(out, "cluster/east cordoned\n")
        elif line.startswith("gantryctl uncordon cluster east"):
            self.assertEqual(out, "cluster/east uncordoned\n")
        elif line.startswith("gantryctl get queues"):
            self.assertIn("research", out)
        elif line.startswith("gantryctl delete job tour-train"):
            self.assertEqual(out, "job/tour-train deleted\n")

    def tearDown(self):
        status = self.up.interrupt()
        self.assertIn(status, (130, 0), "\n".join(self.up.output))
        self.assertEqual(processes_with(self.up.state), [], "up.sh stopped everything it started")


if __name__ == "__main__":
    unittest.main()
