"""Acceptance (issue 30, metrics): a real Prometheus (Debian's) scrapes a real hub's /metrics
with the hub's bearer token, and what Prometheus then answers for the queue's pending jobs, its
wait histogram and the cluster's GPU capacity is what `gantryctl get -o json` says. The agent's own
/metrics counts the same Prepares the hub saw answered. Without the token the hub's target is
down with a 401."""

import json
import os
import shutil
import subprocess
import unittest
import urllib.parse
import urllib.request

from gantry_harness import SOURCE_DIR, Cluster, free_port, job_yaml, wait_until

PROMETHEUS = shutil.which("prometheus")

SCRAPE_CONFIG = """global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: gantry-hub
    static_configs:
      - targets: ["127.0.0.1:{port}"]
    authorization:
      type: Bearer
      credentials_file: {token}
  - job_name: gantry-agent
    static_configs:
      - targets: ["127.0.0.1:{agent_port}"]
    authorization:
      type: Bearer
      credentials_file: {agent_token}
  - job_name: no-token
    static_configs:
      - targets: ["127.0.0.1:{port}"]
"""


def gpu_job(name, replicas, gpus, seconds):
    return job_yaml(name, [("worker", replicas, {"cpu": 1, "nvidia.com/gpu": gpus}, None, None)],
                    annotations={"gantry.io/sim-duration": str(seconds)})


class PrometheusScrapesTheHub(unittest.TestCase):
    def setUp(self):
        self.assertIsNotNone(PROMETHEUS, "Debian's prometheus is not installed (scripts/bootstrap.sh installs it)")
        self.http_port = free_port()
        self.gantry = Cluster(hub_args=["--http-listen", f"127.0.0.1:{self.http_port}"])
        self.addCleanup(self.gantry.close)
        self.agent_port = free_port()
        self.gantry.start_agent("east", "east.yaml",  # 4 nodes of 4 GPUs
                                extra_args=("--http-listen", f"127.0.0.1:{self.agent_port}"))
        self.gantry.wait_ready_clusters(1)
        self.prometheus_url = self.start_prometheus()

    def start_prometheus(self):
        port = free_port()
        directory = os.path.join(self.gantry.workdir, "prometheus")
        os.makedirs(directory)
        config = os.path.join(directory, "prometheus.yml")
        with open(config, "w") as f:
            f.write(SCRAPE_CONFIG.format(
                port=self.http_port, token=os.path.join(self.gantry.state_dir, "metrics.token"),
                agent_port=self.agent_port,
                agent_token=os.path.join(self.gantry.workdir, "agent-east", "metrics.token")))
        with open(os.path.join(directory, "prometheus.log"), "wb") as log:
            process = subprocess.Popen(
                [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={directory}/data",
                 f"--web.listen-address=127.0.0.1:{port}"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.addCleanup(lambda: (process.terminate(), process.wait(timeout=30)))
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: self.http_ok(f"{url}/-/ready"), "Prometheus to be ready")
        return url

    @staticmethod
    def http_ok(url):
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.status == 200
        except OSError:
            return False

    def api(self, path, **query):
        url = f"{self.prometheus_url}/api/v1/{path}?{urllib.parse.urlencode(query)}"
        with urllib.request.urlopen(url, timeout=10) as response:
            answer = json.load(response)
        self.assertEqual(answer["status"], "success", answer)
        return answer["data"]

    def targets(self):
        return {t["scrapePool"]: t for t in self.api("targets", state="active")["activeTargets"]}

    def target(self, pool):
        """The pool's one target, or {} before Prometheus has set it up."""
        return self.targets().get(pool, {})

    def value(self, query):
        """The query's one sample as Prometheus has it now; None while it has none."""
        result = self.api("query", query=query)["result"]
        return float(result[0]["value"][1]) if len(result) == 1 else None

    def test_prometheus_sees_what_gantryctl_sees(self):
        for name in ("short-1", "short-2"):
            self.gantry.submit(gpu_job(name, 1, 1, 1))
        self.gantry.submit(gpu_job("long", 2, 4, 3600))
        for name, phase in (("short-1", "Completed"), ("short-2", "Completed"), ("long", "Running")):
            wait_until(lambda n=name, p=phase: self.gantry.job(n)["phase"] == p, f"{name} {phase}")
        # 12 GPUs on three nodes while "long" holds two of the four: it waits.
        self.gantry.submit(gpu_job("waits", 3, 4, 1))
        wait_until(lambda: self.gantry.job("waits")["reason"], "waits to have a pending reason")

        jobs = self.gantry.get("jobs")
        (cluster,) = self.gantry.get("clusters")
        queue = {q["name"]: q for q in self.gantry.get("queues")}["default"]
        expected = {
            'gantry_queue_pending_jobs{queue="default"}': sum(j["phase"] == "Pending" for j in jobs),
            'gantry_queue_running_jobs{queue="default"}': sum(j["phase"] == "Running" for j in jobs),
            # Every job placed once waited once: submission -> first placement.
            'gantry_queue_wait_seconds_count{queue="default"}': sum(j["phase"] != "Pending" for j in jobs),
            'gantry_queue_allocated{queue="default",resource="nvidia.com/gpu"}':
                queue["allocated"]["nvidia.com/gpu"],
            'gantry_cluster_capacity{cluster="east",resource="nvidia.com/gpu"}':
                cluster["capacity"]["nvidia.com/gpu"],
            'gantry_cluster_allocated{cluster="east",resource="nvidia.com/gpu"}':
                cluster["allocated"]["nvidia.com/gpu"],
            'gantry_cluster_ready{cluster="east"}': 1,
            # The agent's own count of what the hub saw: three Prepares admitted, three parts
            # started, one still running.
            'gantry_agent_prepares_total{cluster="east",result="admitted"}': 3,
            'gantry_cluster_prepares_total{cluster="east",result="admitted"}': 3,
            'gantry_agent_parts_started_total{cluster="east"}': 3,
            'gantry_agent_runs{cluster="east"}': 1,
            'gantry_agent_hub_connected{cluster="east"}': 1,
            # The four submissions, each answered ok on the admin socket and timed.
            'gantry_admin_requests_total{command="SubmitJobs",result="ok"}': 4,
            'gantry_admin_request_duration_seconds_count{command="SubmitJobs"}': 4,
        }
        self.assertEqual(list(expected.values()), [1, 1, 3, 8, 16, 8, 1, 3, 3, 3, 1, 1, 4, 4], "the scene as set")

        for pool in ("gantry-hub", "gantry-agent"):
            wait_until(lambda p=pool: self.target(p).get("health") == "up", f"Prometheus to scrape {pool}",
                       deadline_s=60)
        seen = {}

        def prometheus_agrees():
            seen.update({query: self.value(query) for query in expected})
            return seen == expected
        try:
            wait_until(prometheus_agrees, "Prometheus to hold what gantryctl shows", deadline_s=60)
        except AssertionError:
            self.fail(f"gantryctl shows {expected}; Prometheus holds {seen}")

        self.assertGreater(self.value("gantry_store_commit_duration_seconds_count"), 0, "commits timed")
        # The histogram is one Prometheus can compute with.
        median = self.value('histogram_quantile(0.5, sum by (le) (gantry_queue_wait_seconds_bucket))')
        self.assertIsNotNone(median)
        self.assertGreaterEqual(median, 0)

        wait_until(lambda: self.target("no-token").get("lastError"), "the scrape without a token to fail")
        without_token = self.target("no-token")
        self.assertEqual(without_token["health"], "down", without_token)
        self.assertIn("401", without_token["lastError"], without_token)

        # Every query of the shipped Grafana dashboard runs and finds series here.
        with open(os.path.join(SOURCE_DIR, "deploy", "grafana", "gantry-dashboard.json")) as f:
            dashboard = json.load(f)
        for panel in dashboard["panels"]:
            for target in panel["targets"]:
                wait_until(lambda e=target["expr"]: self.api("query", query=e)["result"],
                           f"dashboard panel {panel['title']!r}: {target['expr']} to have series")


if __name__ == "__main__":
    unittest.main(verbosity=2)
