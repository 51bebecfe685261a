"""Acceptance (issue 30, the page): headless Chromium (Debian's) logs in to a real hub's web
view with the one-time URL `gantryctl web` prints for a viewer key, sees the agent's cluster, the
queue and the jobs, follows a job's phase change as the hub streams it (no reload), shows that
job's events, and leaves a screenshot in the test's output directory (GANTRY_TEST_OUTPUT_DIR).
Without a login the page is refused; a login URL works once; a login is audited, never its
ticket; a key taken out of access.yaml is logged out of the open page; log out ends a session."""

import http.client
import json
import os
import urllib.parse
import unittest
import urllib.error
import urllib.request

from devtools import CHROMIUM, Chromium
from gantry_harness import Cluster, free_port, job_yaml, wait_until, waiting_command

OUTPUT_DIR = os.environ.get("GANTRY_TEST_OUTPUT_DIR") or os.path.join(os.getcwd(), "web_view_output")


class TheWebViewFollowsTheHub(unittest.TestCase):
    def setUp(self):
        self.assertIsNotNone(CHROMIUM, "Debian's chromium is not installed (scripts/bootstrap.sh installs it)")
        self.http_port = free_port()
        self.url = f"http://127.0.0.1:{self.http_port}"
        self.gantry = Cluster(hub_args=["--http-listen", f"127.0.0.1:{self.http_port}"])
        self.addCleanup(self.gantry.close)
        self.gantry.start_agent("east", "east.yaml", executor="process")
        self.gantry.wait_ready_clusters(1)
        with open(os.path.join(self.gantry.state_dir, "metrics.token")) as f:
            self.token = f.read().strip()
        self.marks = os.path.join(self.gantry.workdir, "marks")
        os.makedirs(self.marks)
        os.chmod(self.marks, 0o777)
        self.gantry.keys.add_admin("ann", "viewer")
        self.gantry.reload_access()

    def login_url(self, *args, key="ann"):
        """The URL gantryctl web prints for `key`: alone on stdout."""
        result = self.gantry.ctl("web", *args, key=key)
        self.assertIn(f'it logs a browser in once, as key "{key}"', result.stderr)
        (url,) = result.stdout.splitlines()
        self.assertTrue(url.startswith(f"{self.url}/login?ticket="), url)
        return url

    def status_of(self, url):
        """The status of GET `url`, redirects not followed."""
        parts = urllib.parse.urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        try:
            connection.request("GET", f"{parts.path}?{parts.query}" if parts.query else parts.path)
            return connection.getresponse().status
        finally:
            connection.close()

    def audit(self):
        with open(os.path.join(self.gantry.state_dir, "audit.log")) as f:
            return f.read()

    def status_without_token(self, path):
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    def api(self, path):
        request = urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def dom(self, expression):
        return self.browser.evaluate(expression)

    def await_dom(self, expression, expected, what):
        seen = []

        def matches():
            seen[:] = [self.dom(expression)]
            return seen[0] == expected
        try:
            wait_until(matches, what)
        except AssertionError:
            self.fail(f"{what}: the page shows {seen[0]!r}, expected {expected!r}")

    def job_phase_in_table(self, name):
        return f"document.querySelector('#jobs tr[data-job=\"{name}\"] td.phase')?.textContent ?? null"

    def test_the_page_shows_clusters_queues_jobs_and_follows_a_phase_change(self):
        for path in ("/", "/api/overview", "/api/stream", "/api/jobs/gated"):
            self.assertEqual(self.status_without_token(path), 401, path)

        gated = job_yaml("gated", [("worker", 1, {"cpu": 1}, waiting_command(self.marks, "gated"), None)])
        self.gantry.submit(gated)
        wait_until(lambda: os.path.exists(os.path.join(self.marks, "gated.starts")), "gated to start")
        self.gantry.submit(job_yaml("too-big", [("worker", 1, {"cpu": 1, "nvidia.com/gpu": 64}, None, None)]))

        self.browser = Chromium(self.gantry.workdir)
        self.addCleanup(self.browser.close)
        self.assertEqual(self.status_of(f"{self.url}/login?token={self.token}"), 401,
                         "the scrape token is no login")
        self.browser.navigate(self.login_url())
        self.assertEqual(self.dom("location.pathname"), "/", "the login redirects to the page")
        self.await_dom("document.getElementById('live').textContent", "live", "the event stream to open")
        self.await_dom("document.getElementById('who').textContent", "ann (viewer)", "who is logged in")

        # What gantryctl shows, the page shows.
        (cluster,) = self.gantry.get("clusters")
        gpus = cluster["capacity"]["nvidia.com/gpu"]
        self.await_dom("[...document.querySelectorAll('#clusters tbody tr')].map(r => "
                       "[...r.cells].map(c => c.textContent).slice(0, 2).concat(r.cells[4].textContent))",
                       [["east", "ready", str(gpus - cluster["allocated"].get("nvidia.com/gpu", 0))]],
                       "the cluster, ready, with its free GPUs")
        products = {name[len("nvidia.com/gpu/"):]: total for name, total in cluster["capacity"].items()
                    if name.startswith("nvidia.com/gpu/")}
        self.assertTrue(products, "east.yaml names its GPU product")
        self.await_dom("[...document.querySelectorAll('#products tbody tr')].map(r => "
                       "[...r.cells].map(c => c.textContent))",
                       [[name, "0", str(total)] for name, total in products.items()],
                       "GPUs used and free per product")
        self.await_dom("[...document.querySelectorAll('#queues tbody tr')].map(r => r.dataset.queue)",
                       [q["name"] for q in self.gantry.get("queues")], "the queues")
        self.await_dom("document.querySelector('#queues tr[data-queue=\"default\"] td.pending').textContent",
                       "1", "the default queue's one pending job")
        self.await_dom(self.job_phase_in_table("too-big"), "Pending", "the pending job")
        self.await_dom("document.querySelector('#jobs tr[data-job=\"too-big\"] td.reason').textContent",
                       self.gantry.job("too-big")["reason"], "the pending job's reason")
        self.await_dom(self.job_phase_in_table("gated"), "Running", "the running job")

        # The filter narrows the table to what matches.
        self.dom("document.getElementById('job-filter').value = 'gated';"
                 "document.getElementById('job-filter').dispatchEvent(new Event('input'))")
        self.assertEqual(self.dom("[...document.querySelectorAll('#jobs tbody tr')].map(r => r.dataset.job)"),
                         ["gated"])

        # The job's page: its part and its events, as describe shows them.
        self.dom("location.hash = '#/jobs/gated'")
        self.await_dom("document.getElementById('job-phase')?.textContent ?? null", "Running", "the job's page")
        self.assertEqual(self.dom("[...document.querySelectorAll('#job-parts tbody tr')].map(r => r.dataset.cluster)"),
                         ["east"])
        events = self.api("/api/jobs/gated")["events"]
        self.assertTrue(events, "the hub keeps gated's events")
        self.await_dom("document.querySelectorAll('#job-events li').length >= %d" % len(events), True,
                       "the job's events on its page")
        shown = self.dom("[...document.querySelectorAll('#job-events li')].map(li => li.textContent)")
        self.assertEqual(shown[:len(events)], [e["time"] + e["text"] for e in events])

        # The phase change arrives over the stream: the page is not reloaded (the marker stays).
        self.dom("window.notReloaded = true")
        with open(os.path.join(self.marks, "gated.release"), "w"):
            pass
        self.await_dom("document.getElementById('job-phase').textContent", "Completed",
                       "the job's page to show it completed")
        self.await_dom(self.job_phase_in_table("gated"), "Completed", "the jobs table to show it completed")
        self.assertTrue(self.dom("window.notReloaded === true"), "the page was reloaded")
        self.assertEqual(self.gantry.job("gated")["phase"], "Completed")
        last_events = self.api("/api/jobs/gated")["events"]
        self.await_dom("[...document.querySelectorAll('#job-events li')].at(-1).textContent",
                       last_events[-1]["time"] + last_events[-1]["text"], "the job's last event on its page")

        os.makedirs(OUTPUT_DIR, exist_ok=True)
        screenshot = os.path.join(OUTPUT_DIR, "web_view_job.png")
        self.browser.screenshot(screenshot)
        self.dom("location.hash = '#/'; document.getElementById('job-filter').value = '';"
                 "document.getElementById('job-filter').dispatchEvent(new Event('input'))")
        self.await_dom("document.getElementById('overview').hidden", False, "the overview")
        self.browser.screenshot(os.path.join(OUTPUT_DIR, "web_view_overview.png"))
        with open(screenshot, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", "a PNG screenshot")

    def test_a_login_works_once_is_audited_and_ends_with_its_key_or_on_log_out(self):
        self.gantry.submit(job_yaml("hello", [("worker", 1, {"cpu": 1}, ["true"], None)]))
        wait_until(lambda: self.gantry.job("hello")["phase"] == "Completed", "hello to complete")
        self.browser = Chromium(self.gantry.workdir)
        self.addCleanup(self.browser.close)

        # On the job's page, as --job asks; the URL works once.
        url = self.login_url("--job", "hello")
        self.browser.navigate(url)
        self.await_dom("location.hash", "#/jobs/hello", "the job's page")
        self.await_dom("document.getElementById('job-phase')?.textContent ?? null", "Completed",
                       "the job's page to show it")
        self.assertEqual(self.status_of(url), 401, "a login URL used once")
        ticket = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["ticket"][0]
        audit = self.audit()
        self.assertNotIn(ticket, audit, "the audit log never holds a ticket")
        lines = [json.loads(line) for line in audit.splitlines()]
        ann = [(line["action"], line["kind"], line["result"]) for line in lines if line["key"] == "ann"]
        self.assertEqual(ann, [("ticket", "web", "ok"), ("login", "web", "ok")])

        # ann is taken out of access.yaml: the open page's stream ends at its next write
        # (a change here), and the page says it is logged out; its cookie opens nothing.
        self.await_dom("document.getElementById('live').textContent", "live", "the event stream to open")
        self.gantry.keys.remove("ann")
        self.gantry.reload_access()
        self.gantry.submit(job_yaml("after", [("worker", 1, {"cpu": 1}, ["true"], None)]))
        self.await_dom("document.getElementById('live').textContent", "logged out",
                       "the page to say it is logged out")
        self.assertFalse(self.dom("document.getElementById('logged-out').hidden"))
        self.assertEqual(self.dom("fetch('/api/overview').then(r => r.status)"), 401)
        self.assertEqual(self.gantry.ctl("web", key="ann", check=False).returncode, 2,
                         "the hub no longer lets ann's key in")

        # Another key logs in, and out with the page's button.
        self.browser.navigate(self.login_url(key="gantryctl"))
        self.await_dom("document.getElementById('who').textContent", "gantryctl (admin)", "who is logged in")
        self.dom("document.getElementById('logout').click()")
        self.await_dom("document.getElementById('live').textContent", "logged out", "the log out")
        self.assertEqual(self.dom("fetch('/api/overview').then(r => r.status)"), 401)


if __name__ == "__main__":
    unittest.main(verbosity=2)
