"""What the deploy/ tests share: how a check fails, and running a tool that must never reach a
Kubernetes API server (there is none here; kubectl works client side only)."""

import json
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


def check_yamllint(path, config):
    result = run(["yamllint", "--strict", "-f", "parsable", "-c", str(config), str(path)])
    expect(result.returncode == 0, f"yamllint:\n{result.stdout}{result.stderr}")


def decoded_by_kubectl(path):
    """Every object of the file as kubectl decodes it client side (annotate --local: no server)."""
    result = run(["kubectl", "annotate", "--local", "--dry-run=client", "-o", "json",
                  "--kubeconfig", "/dev/null", "-f", str(path), "gantry.io/checked=true"])
    expect(result.returncode == 0, f"kubectl could not decode {path.name}:\n{result.stderr}")
    # One JSON object per manifest object, concatenated (a List holds several).
    decoder, text, objects, at = json.JSONDecoder(), result.stdout, [], 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        obj, at = decoder.raw_decode(text, at)
        objects.extend(obj["items"] if obj.get("kind") == "List" else [obj])
    return objects


def run_checks(checks, failed=0):
    """Runs every (name, check), printing one line each and the closing count; returns the
    exit status. A check fails by raising: Failure, or an error reading what it checks."""
    passed = 0
    for name, check in checks:
        try:
            check()
        except (Failure, KeyError, TypeError, ValueError, StopIteration, AttributeError, IndexError,
                OSError, subprocess.SubprocessError) as error:
            print(f"FAIL {name}: {type(error).__name__}: {error}")
            failed += 1
        else:
            print(f"ok   {name}")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1
