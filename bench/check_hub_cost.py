#!/usr/bin/env python3
"""check_hub_cost.py: is the hub's cost per job still what bench/README.md last recorded?

The hub's CPU per job once doubled without anyone noticing (issue 32). This runs
gantry-bench-e2e (default settings: 100 fake clusters, 20,000 jobs) --runs times, takes the
median hub_cpu_us_per_job and compares it with bench/hub_cost_baseline.json, the figure last
recorded (with the commit and day it was measured on). A median more than --tolerance (20 %)
above the baseline is reported as a regression and the exit status is 1; otherwise 0.

The box's speed moves from day to day. Each run also measures a raw ZeroMQ ping-pong on the same
box (raw_zmq_pingpong_per_s), and the report shows its ratio to the baseline's: a regression with
a box that is as much slower is the box, not the code. Confirm with alternating before/after
pairs on one box (bench/README.md) before blaming a change.

  /usr/bin/python3 bench/check_hub_cost.py                 # build/bin, 3 runs
  /usr/bin/python3 bench/check_hub_cost.py --bin-dir build/bin --runs 5
  /usr/bin/python3 bench/check_hub_cost.py --record        # after recording figures in README
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINE = os.path.join(HERE, "hub_cost_baseline.json")


def run_bench(bin_dir, extra):
    bench = os.path.join(bin_dir, "gantry-bench-e2e")
    result = subprocess.run([bench, "--hub", os.path.join(bin_dir, "gantry-hub"), *extra],
                            capture_output=True, text=True, timeout=900)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        raise SystemExit(f"gantry-bench-e2e failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return json.loads(lines[-1])


def git_head():
    try:
        return subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=os.path.join(HERE, "..", "build", "bin"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tolerance", type=float, default=0.20, help="allowed growth (default 0.20)")
    parser.add_argument("--record", action="store_true", help="write this run's median as the new baseline")
    parser.add_argument("bench_args", nargs="*", help="passed to gantry-bench-e2e (after --)")
    args = parser.parse_args()

    runs = [run_bench(args.bin_dir, args.bench_args) for _ in range(args.runs)]
    cost = statistics.median(run["hub_cpu_us_per_job"] for run in runs)
    box = statistics.median(run["raw_zmq_pingpong_per_s"] for run in runs)
    submits = statistics.median(run["submits_per_s"] for run in runs)

    if args.record:
        with open(BASELINE, "w") as f:
            json.dump({"hub_cpu_us_per_job": cost, "raw_zmq_pingpong_per_s": box, "submits_per_s": submits,
                       "commit": git_head(), "date": datetime.date.today().isoformat()}, f, indent=2)
            f.write("\n")
        print(f"recorded {cost:.1f} µs of hub CPU per job ({git_head()}) in {BASELINE}")
        return 0

    with open(BASELINE) as f:
        baseline = json.load(f)
    ratio = cost / baseline["hub_cpu_us_per_job"]
    box_ratio = baseline["raw_zmq_pingpong_per_s"] / box  # > 1: this box is slower than the baseline's
    print("| figure | baseline ({}, {}) | now ({}, median of {}) | now / baseline |".format(
        baseline["commit"], baseline["date"], git_head(), args.runs))
    print("|---|---|---|---|")
    print(f"| hub CPU per job | {baseline['hub_cpu_us_per_job']:.1f} µs | {cost:.1f} µs | {ratio:.2f} |")
    print(f"| submits/s | {baseline['submits_per_s']:,.0f} | {submits:,.0f} | "
          f"{submits / baseline['submits_per_s']:.2f} |")
    print(f"| raw ZeroMQ ping-pong time (the box) | 1 | {box_ratio:.2f} | {box_ratio:.2f} |")
    if ratio > 1 + args.tolerance:
        print(f"REGRESSION: the hub costs {ratio:.2f}x the recorded CPU per job "
              f"(more than {1 + args.tolerance:.2f}x); the box itself runs {box_ratio:.2f}x slower.")
        return 1
    print(f"ok: within {args.tolerance:.0%} of the recorded figure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
