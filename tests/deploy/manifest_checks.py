"""What the deploy/ tests share: how a check fails, and running a tool that must never reach a
Kubernetes API server (there is none here; kubectl works client side only)."""

import os
import subprocess


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


def expect_equal(actual, expected, what):
    if isinstance(actual, set) and isinstance(expected, set) and actual != expected:
        raise Failure(f"{what}: missing {sorted(expected - actual)}, unexpected {sorted(actual - expected)}")
    expect(actual == expected, f"{what}: expected {expected!r}, got {actual!r}")


def run(command, **kwargs):
    # No kubeconfig at all: nothing may reach a server by accident.
    env = dict(os.environ, KUBECONFIG="/dev/null")
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, **kwargs)
