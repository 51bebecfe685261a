#!/usr/bin/env python3
"""hub_recovery.py: how long the control plane is out after a hub dies, per job store, in one run.

For each size N (--jobs, default 1000,10000) it runs three cases, each on fresh state:

  sqlite-restart  one hub on SQLite (gantry.db in its --state); N jobs submitted and acknowledged
                  (no agent joins, so they all stay Pending); kill -9; the same hub started again
                  at once on the same state directory.
  etcd-restart    the same with --store etcd://127.0.0.1:PORT/PREFIX (a fresh prefix per case),
                  same host and state directory, so the restarted hub takes its own claim back
                  at once instead of waiting for the writer lease.
  etcd-failover   two hubs on one etcd prefix (their own state directories and ports); the second
                  waits for the store. kill -9 the first: the second claims the store once the
                  first one's writer lease (10 s TTL, renewed every 3 s) lapses, reads every job
                  from etcd and binds its sockets.

After the kill it polls `gantryctl get jobs -o json` (per call --timeout, --poll-timeout) and
records the time to the first answer of any kind and to the first answer listing all N jobs. For
the failover it also polls the store's writer key in etcd (every 20 ms) to split the lease wait
(kill -> the standby's claim) from the rest, and reads the new hub's log for when it re-queued
the stored jobs ("re-queueing N unfinished job(s)") and bound its sockets ("hub epoch ...").

It starts its own etcd (/usr/bin/etcd, one member on free loopback ports, data in a temporary
directory, as tests/e2e/etcd_process.py does) and the hubs with --insecure (plaintext sockets,
no keys: bench-only, like gantry-bench-e2e; CurveZMQ would add a handshake per gantryctl call).
Everything is bounded by timeouts; processes and temporary directories are removed on exit,
Ctrl-C included. A case that fails is reported as failed and the others still run; the exit
status is 1 if any case failed.

Output: a markdown table, then one JSON line per case.

  /usr/bin/python3 bench/hub_recovery.py                      # N = 1000 and 10000
  /usr/bin/python3 bench/hub_recovery.py --quick              # N = 100, a smoke run
  /usr/bin/python3 bench/hub_recovery.py --jobs 5000 --cases etcd-failover --bin-dir build/bin
"""

import argparse
import base64
import datetime
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ("sqlite-restart", "etcd-restart", "etcd-failover")


class CaseFailed(Exception):
    pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def now():
    return time.monotonic()


def log_time(line):
    """Wall-clock seconds of a hub log line '[2026-11-29 14:40:47.178] [info] ...' (local time)."""
    try:
        stamp = datetime.datetime.strptime(line[1:24], "%Y-%m-%d %H:%M:%S.%f")
    except ValueError:
        return None
    return stamp.timestamp()


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


class Processes:
    """Every process this script starts (each in its own session), killed on exit."""

    def __init__(self):
        self.live = []

    def spawn(self, argv, log_path, stdin=None, stdout=None):
        wait_for_file(argv[0])
        log = open(log_path, "ab")
        try:
            process = subprocess.Popen(argv, stdin=stdin, stdout=stdout or log, stderr=log,
                                       start_new_session=True)
        finally:
            log.close()
        self.live.append(process)
        return process

    def kill(self, process):
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        if process in self.live:
            self.live.remove(process)

    def kill_all(self):
        for process in list(self.live):
            self.kill(process)


def wait_for_file(path, deadline_s=120):
    """The binaries may be rebuilt beside this run: a missing one is waited for a while."""
    end = now() + deadline_s
    while not os.access(path, os.X_OK):
        if now() > end:
            raise CaseFailed(f"{path} is missing")
        time.sleep(1)


class Etcd:
    """One etcd member on free loopback ports, its data in `directory`."""

    def __init__(self, processes, binary, directory):
        self.dir = directory
        os.makedirs(directory)
        self.port = free_port()
        peer = free_port()
        self.endpoint = f"127.0.0.1:{self.port}"
        self.log_path = os.path.join(directory, "etcd.log")
        self.process = processes.spawn(
            [binary, "--name", "bench", "--data-dir", os.path.join(directory, "data"),
             "--listen-client-urls", f"http://{self.endpoint}",
             "--advertise-client-urls", f"http://{self.endpoint}",
             "--listen-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-cluster", f"bench=http://127.0.0.1:{peer}"], self.log_path)
        end = now() + 60
        while not self.healthy():
            if now() > end:
                raise CaseFailed("etcd did not become healthy within 60 s: "
                                 + read_text(self.log_path)[-1000:])
            time.sleep(0.2)
        self.version = subprocess.run([binary, "--version"], capture_output=True, text=True,
                                      timeout=30).stdout.split("\n")[0].strip()

    def healthy(self):
        if self.process.poll() is not None:
            raise CaseFailed("etcd exited: " + read_text(self.log_path)[-1000:])
        try:
            with urllib.request.urlopen(f"http://{self.endpoint}/health", timeout=2) as answer:
                return json.load(answer).get("health") == "true"
        except (OSError, ValueError):
            return False

    def get(self, key, timeout_s=1.0):
        """The key's value (str) or None, through etcd's JSON gateway."""
        body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
        request = urllib.request.Request(f"http://{self.endpoint}/v3/kv/range", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            kvs = json.load(answer).get("kvs") or []
        return base64.b64decode(kvs[0].get("value", "")).decode() if kvs else None


class WriterWatch(threading.Thread):
    """Polls PREFIX/writer every 20 ms: when the killed hub's value went, when another came."""

    def __init__(self, etcd, key, old_value):
        super().__init__(daemon=True)
        self.etcd, self.key, self.old = etcd, key, old_value
        self.gone_at = None     # monotonic: first poll without the killed hub's claim
        self.claimed_at = None  # monotonic: first poll with another hub's claim
        self.claimed_by = None
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set() and self.claimed_at is None:
            try:
                value = self.etcd.get(self.key)
            except (OSError, ValueError):
                value = self.old  # not known: count it as still held
            t = now()
            if value != self.old and self.gone_at is None:
                self.gone_at = t
            if value is not None and value != self.old:
                self.claimed_at, self.claimed_by = t, value
            self.stop.wait(0.02)


class Bench:
    def __init__(self, args):
        self.args = args
        self.processes = Processes()
        self.work = tempfile.mkdtemp(prefix="gantry-bench-recovery-")
        self.etcd = None
        self.versions = {}

    def copy_binaries(self):
        args = self.args
        # One copy of each binary for the whole run: the build tree may be relinked meanwhile.
        bin_dir = os.path.join(self.work, "bin")
        os.makedirs(bin_dir)
        for name in ("gantry-hub", "gantryctl"):
            for attempt in range(10):
                wait_for_file(os.path.join(args.bin_dir, name))
                shutil.copy2(os.path.join(args.bin_dir, name), bin_dir)
                check = subprocess.run([os.path.join(bin_dir, name), "--version"],
                                       capture_output=True, text=True, timeout=30)
                if check.returncode == 0:
                    built = datetime.datetime.fromtimestamp(
                        os.path.getmtime(os.path.join(args.bin_dir, name))).strftime("%Y-%m-%d %H:%M")
                    self.versions[name] = f"{check.stdout.strip()} (built {built})"
                    break
                time.sleep(5)  # caught while being written: copy it again
            else:
                raise CaseFailed(f"{name} in {args.bin_dir} does not run")
        self.hub_bin = os.path.join(bin_dir, "gantry-hub")
        self.ctl_bin = os.path.join(bin_dir, "gantryctl")

    # ---- gantryctl ----

    def ctl(self, hub, args, timeout_s, stdin=None):
        wait_for_file(self.ctl_bin)
        argv = [self.ctl_bin, "--insecure", "--hub", hub, "--timeout", f"{int(timeout_s * 1000)}ms",
                *args]
        try:
            return subprocess.run(argv, stdin=stdin, capture_output=True, text=True,
                                  timeout=timeout_s + 30)
        except subprocess.TimeoutExpired as e:
            return subprocess.CompletedProcess(argv, 124, e.stdout or "", "gantryctl hung")

    def count_jobs(self, hub, prefix, timeout_s):
        """Jobs named PREFIX-* in one `get jobs -o json` answer; None when no answer."""
        result = self.ctl(hub, ["get", "jobs", "-o", "json"], timeout_s)
        if result.returncode != 0:
            return None
        try:
            jobs = json.loads(result.stdout)
        except ValueError:
            return None
        return sum(1 for job in jobs if str(job.get("name", "")).startswith(prefix + "-"))

    def wait_answering(self, hub, process, log_path, deadline_s=60):
        end = now() + deadline_s
        while now() < end:
            if self.ctl(hub, ["get", "clusters"], 0.5).returncode == 0:
                return
            if process.poll() is not None:
                raise CaseFailed(f"the hub exited with {process.returncode}: "
                                 + read_text(log_path)[-500:])
        raise CaseFailed(f"the hub at {hub} did not answer within {deadline_s} s")

    # ---- hubs ----

    def hub_argv(self, state, agents, admin, store):
        argv = [self.hub_bin, "--state", state, "--agents", agents, "--admin", admin,
                "--insecure", "--log-level", "info"]
        return argv + (["--store", store] if store else [])

    def start_hub(self, argv, log_path):
        process = self.processes.spawn(argv, log_path)
        return process

    def submit(self, case_dir, hub, prefix, n):
        """N one-replica jobs, several gantryctl processes in parallel, each many documents."""
        submitters = max(1, min(self.args.submitters, n))
        per = (n + submitters - 1) // submitters
        running = []
        start = now()
        for k in range(submitters):
            names = [f"{prefix}-{i:06d}" for i in range(k * per, min(n, (k + 1) * per))]
            if not names:
                continue
            yaml_path = os.path.join(case_dir, f"submit-{k}.yaml")
            with open(yaml_path, "w") as f:
                f.write("---\n".join(job_yaml(name) for name in names))
            out_path = os.path.join(case_dir, f"submit-{k}.out")
            wait_for_file(self.ctl_bin)
            with open(yaml_path) as stdin, open(out_path, "w") as stdout:
                process = self.processes.spawn(
                    [self.ctl_bin, "--insecure", "--hub", hub, "--timeout", "30s",
                     "submit", "-f", "-"], os.path.join(case_dir, f"submit-{k}.err"),
                    stdin=stdin, stdout=stdout)
            running.append((process, out_path, len(names), k))
        acked = 0
        end = start + self.args.submit_timeout
        try:
            for process, out_path, expected, k in running:
                try:
                    process.wait(timeout=max(1, end - now()))
                except subprocess.TimeoutExpired:
                    raise CaseFailed(f"submitting {n} jobs took over {self.args.submit_timeout} s")
                got = len(read_text(out_path).split())
                if process.returncode != 0 or got != expected:
                    err = read_text(os.path.join(case_dir, f"submit-{k}.err")).strip().splitlines()
                    raise CaseFailed(f"submitter {k}: {got} of {expected} acknowledged, exit "
                                     f"{process.returncode}: {err[-1] if err else ''}")
                acked += got
        finally:
            for process, _, _, _ in running:
                self.processes.kill(process)
        return acked, now() - start

    def poll_recovery(self, hub, prefix, n, killed, poll_timeout, process):
        """From the kill: the first answer of any kind and the first listing all N.
        Gives up at --deadline, or at once when the hub that should answer has exited."""
        first_s = first_count = all_s = None
        polls = 0
        end = killed + self.args.deadline
        while now() < end:
            count = self.count_jobs(hub, prefix, poll_timeout)
            polls += 1
            t = now() - killed
            if count is None:
                if process.poll() is not None:
                    break
                continue
            if first_s is None:
                first_s, first_count = t, count
            if count == n:
                all_s = t
                break
            time.sleep(0.05)
        return {"first_answer_s": first_s, "first_answer_jobs": first_count,
                "all_listed_s": all_s, "polls": polls}

    # ---- cases ----

    def run_case(self, case, n):
        case_dir = os.path.join(self.work, f"{case}-{n}")
        os.makedirs(case_dir)
        prefix = f"r{n}"
        result = {"case": case, "backend": "sqlite" if case.startswith("sqlite") else "etcd",
                  "jobs": n, "insecure": True}
        hubs = []
        try:
            store = None
            if result["backend"] == "etcd":
                if self.etcd is None:
                    self.etcd = Etcd(self.processes, self.args.etcd, os.path.join(self.work, "etcd"))
                key_prefix = f"/bench-recovery/{case}-{n}-{os.getpid()}"
                store = f"etcd://{self.etcd.endpoint}{key_prefix}"
                result["store"] = store
            admin_a = f"tcp://127.0.0.1:{free_port()}"
            argv_a = self.hub_argv(os.path.join(case_dir, "state-a"),
                                   f"tcp://127.0.0.1:{free_port()}", admin_a, store)
            hubs.append(self.start_hub(argv_a, os.path.join(case_dir, "hub-a.log")))
            self.wait_answering(admin_a, hubs[0], os.path.join(case_dir, "hub-a.log"))
            poll_hub, new_log = admin_a, os.path.join(case_dir, "hub-a-restarted.log")
            if case == "etcd-failover":
                state_b = os.path.join(case_dir, "state-b")
                admin_b = f"tcp://127.0.0.1:{free_port()}"
                new_log = os.path.join(case_dir, "hub-b.log")
                hubs.append(self.start_hub(
                    self.hub_argv(state_b, f"tcp://127.0.0.1:{free_port()}", admin_b, store), new_log))
                end = now() + 60
                while "is held by" not in read_text(new_log):
                    if hubs[-1].poll() is not None or now() > end:
                        raise CaseFailed("the standby did not wait for the store: "
                                         + read_text(new_log)[-500:])
                    time.sleep(0.1)
                poll_hub = f"{admin_b},{admin_a}"  # as a client given both would ask

            acked, submit_s = self.submit(case_dir, admin_a, prefix, n)
            result.update(submit_s=round(submit_s, 2), submits_per_s=round(acked / submit_s, 1))
            t = now()
            listed = self.count_jobs(admin_a, prefix, 60)
            result["list_before_kill_s"] = round(now() - t, 3)
            if listed != n:
                raise CaseFailed(f"before the kill the hub listed {listed} of {n} jobs")
            # A poll must have time for a whole listing: at least 3x what one took before the kill.
            result["poll_timeout_s"] = max(self.args.poll_timeout, 3 * result["list_before_kill_s"])

            watch = None
            if case == "etcd-failover":
                writer_key = key_prefix + "/writer"
                watch = WriterWatch(self.etcd, writer_key, self.etcd.get(writer_key))
                watch.start()
            killed, killed_wall = now(), time.time()
            os.kill(hubs[0].pid, signal.SIGKILL)
            hubs[0].wait(timeout=30)
            if case != "etcd-failover":
                hubs.append(self.start_hub(argv_a, new_log))  # as a supervisor would, at once
            result.update(self.poll_recovery(poll_hub, prefix, n, killed, result["poll_timeout_s"],
                                             hubs[-1]))
            if watch:
                watch.stop.set()
                watch.join(timeout=5)
                if watch.claimed_at is not None:
                    result["lease_wait_s"] = watch.claimed_at - killed
                    if result["all_listed_s"] is not None:
                        result["after_claim_s"] = result["all_listed_s"] - result["lease_wait_s"]
            # What the new hub logged, on the wall clock (ms resolution), from the kill.
            for line in read_text(new_log).splitlines():
                if "re-queueing" in line and "requeue_log_s" not in result:
                    stamp = log_time(line)
                    if stamp is not None:
                        result["requeue_log_s"] = stamp - killed_wall
                if "hub epoch" in line and "bound_log_s" not in result:
                    stamp = log_time(line)
                    if stamp is not None:
                        result["bound_log_s"] = stamp - killed_wall
            if result["all_listed_s"] is None:
                why = (f"no answer listing all {n} jobs within {round(now() - killed, 1)} s "
                       f"(first answer: {result['first_answer_s']}, "
                       f"{result['first_answer_jobs']} jobs)")
                if hubs[-1].poll() is not None:
                    why += (f"; the hub exited with {hubs[-1].returncode}: "
                            + read_text(new_log)[-500:].strip())
                raise CaseFailed(why)
            result["error"] = None
        except CaseFailed as e:
            result["error"] = str(e)
        except Exception as e:  # anything else fails this case, not the run
            result["error"] = f"{type(e).__name__}: {e}"
        finally:
            for hub in hubs:
                self.processes.kill(hub)
            if not self.args.keep:
                shutil.rmtree(case_dir, ignore_errors=True)
        for key, value in list(result.items()):
            if isinstance(value, float):
                result[key] = round(value, 3)
        return result

    def close(self):
        self.processes.kill_all()
        if self.args.keep:
            print(f"kept {self.work}", file=sys.stderr)
        else:
            shutil.rmtree(self.work, ignore_errors=True)


def job_yaml(name):
    return ("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n"
            f"  name: {name}\nspec:\n  queue: default\n  minAvailable: 1\n  tasks:\n"
            "    - name: worker\n      replicas: 1\n      template:\n        spec:\n"
            "          containers:\n            - name: main\n              image: none\n"
            '              command: ["/bin/true"]\n'
            '              resources:\n                requests: {"cpu": "1"}\n')


def machine():
    model = ""
    for line in read_text("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem_kb = 0
    for line in read_text("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            mem_kb = int(line.split()[1])
    return f"{os.cpu_count()} cores ({model}), {mem_kb / 1048576:.0f} GiB, {platform.node()}"


def cell(value, digits=2):
    return "—" if value is None else f"{value:.{digits}f}"


def print_table(results):
    print("| case | jobs | submits/s | list before kill s | first answer s (jobs in it) "
          "| all jobs listed s | lease wait s | after claim s | re-queued (log) s | bound (log) s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        if r.get("error"):
            why = " ".join(r["error"].split()).replace("|", "\\|")[:300]
            print(f"| {r['case']} | {r['jobs']:,} | FAILED: {why} ||||||||")
            continue
        first = f"{cell(r['first_answer_s'])} ({r['first_answer_jobs']:,})"
        print(f"| {r['case']} | {r['jobs']:,} | {r.get('submits_per_s', 0):,.0f} "
              f"| {cell(r.get('list_before_kill_s'))} | {first} | {cell(r['all_listed_s'])} "
              f"| {cell(r.get('lease_wait_s'))} | {cell(r.get('after_claim_s'))} "
              f"| {cell(r.get('requeue_log_s'))} | {cell(r.get('bound_log_s'))} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", default="1000,10000",
                        help="comma-separated numbers of stored unfinished jobs (default 1000,10000)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: --jobs 100")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated, of " + ", ".join(CASES))
    parser.add_argument("--bin-dir", default=os.environ.get("GANTRY_BIN_DIR", os.path.join(REPO, "build", "bin")),
                        help="where gantry-hub and gantryctl are (default build/bin; $GANTRY_BIN_DIR)")
    parser.add_argument("--etcd", default=shutil.which("etcd") or "/usr/bin/etcd")
    parser.add_argument("--submitters", type=int, default=8,
                        help="gantryctl submit processes in parallel (default 8)")
    parser.add_argument("--poll-timeout", type=float, default=0.5,
                        help="gantryctl --timeout of each poll after the kill, seconds (default 0.5; "
                             "raised to 3x the listing's time before the kill when that is longer)")
    parser.add_argument("--deadline", type=float, default=180,
                        help="give a case up this long after the kill, seconds (default 180)")
    parser.add_argument("--submit-timeout", type=float, default=600,
                        help="give a case up if submitting takes longer, seconds (default 600)")
    parser.add_argument("--keep", action="store_true", help="keep the logs and state in the temp dir")
    args = parser.parse_args()
    sizes = [100] if args.quick else [int(x) for x in args.jobs.split(",") if x.strip()]
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    for c in cases:
        if c not in CASES:
            parser.error(f"unknown case {c!r}")

    def stop(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, stop)

    bench = Bench(args)
    results = []
    load_start = os.getloadavg()
    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    try:
        bench.copy_binaries()
        for n in sizes:
            for case in cases:
                print(f"{case}, {n} jobs ...", file=sys.stderr, flush=True)
                results.append(bench.run_case(case, n))
                r = results[-1]
                print(f"  {json.dumps(r)}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        bench.close()
        sys.exit(130)
    except CaseFailed as e:
        print(f"error: {e}", file=sys.stderr)
        bench.close()
        sys.exit(1)
    except Exception:
        bench.close()
        raise
    etcd_version = bench.etcd.version if bench.etcd else None
    bench.close()
    load_end = os.getloadavg()
    print(f"{started}, {machine()}; load average {load_start[0]:.2f} at the start, "
          f"{load_end[0]:.2f} at the end; hubs with --insecure (bench only), --log-level info, "
          f"no agents (every job stays Pending); {bench.versions.get('gantry-hub')}; "
          f"{etcd_version or 'no etcd'}; "
          f"polls: gantryctl --timeout {int(args.poll_timeout * 1000)}ms (or 3x a listing) get jobs -o json")
    print()
    print_table(results)
    print()
    for r in results:
        print(json.dumps(r))
    sys.exit(1 if any(r.get("error") for r in results) else 0)


if __name__ == "__main__":
    main()
