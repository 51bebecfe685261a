#!/usr/bin/env python3
"""Writes the text seed corpora under tests/fuzz/corpus/ from the project's own
examples and tests: every example manifest, the Volcano compatibility corpus,
and the raw-string YAML / JSON documents in the parsers' unit tests. Real
inputs make better seeds than made-up ones: the fuzzer starts from what the
parsers accept and mutates from there.

Run from the repository root: python3 tests/fuzz/make_text_seeds.py
(fuzz_envelope's binary seeds come from build-fuzz/bin/make_envelope_seeds.)
"""
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
RAW_STRING = re.compile(r'R"\((.*?)\)"', re.S)


def raw_strings(test_file):
    return RAW_STRING.findall((ROOT / test_file).read_text())


def json_values(test_files):
    """The raw strings of `test_files` that are whole JSON values."""
    values = []
    for test_file in test_files:
        for text in raw_strings(test_file):
            try:
                values.append(json.loads(text))
            except ValueError:
                pass  # a fragment glued to code in the test
    return values


def write(name, seeds):
    folder = CORPUS / name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for index, (label, text) in enumerate(seeds):
        data = text if isinstance(text, bytes) else text.encode()
        (folder / f"{index:02d}-{label}").write_bytes(data)


def files(pattern):
    return [(path.stem, path.read_text()) for path in sorted(ROOT.glob(pattern))]


def from_tests(test_file):
    return [("test", text) for text in raw_strings(test_file)]


def main():
    write("quantity", [("q", q) for q in (
        "+3", "0.1m", "1.5", "1000", "10Gi", "128Mi", "12x", "16Gi", "1e3", "1k", "2", "500m",
        "1e99", "64", "512Gi", "2.5Ti", "100M", "1E6", "0.5")])
    write("duration", [("d", d) for d in (
        "-5m", "0s", "1..5h", "1h1ms", "1h30m", "2.5h", "2555555555555h", "30m", "3d", "500ms",
        "90", "90s", "99999999999999999999h", "1.5s", "72h")])
    write("volcano_job", files("examples/jobs/*.yaml") +
          files("tests/config/volcano_compat/jobs/*.yaml") +
          from_tests("tests/config/volcano_job_test.cpp"))
    write("volcano_queue", files("examples/queues/*.yaml") +
          files("tests/config/volcano_compat/queues/*.yaml") +
          from_tests("tests/config/volcano_queue_test.cpp"))
    write("priority_class", files("examples/priorityclasses/*.yaml") + [
        ("every-field", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n"
         "  name: urgent\n  labels: {team: ml}\nvalue: 1000000\nglobalDefault: true\n"
         "preemptionPolicy: Never\ndescription: \"On-call work.\"\n"),
    ])
    write("inventory", files("examples/inventories/*.yaml") +
          from_tests("tests/config/inventory_test.cpp") + [
        ("openb", "sn,cpu_milli,memory_mib,gpu,model\r\nopenb-node-0000,64000,262144,2,P100\r\n"
         "\r\nopenb-node-0001,96000,786432,8,G2\r\nopenb-cpu-0,32000,1024,0,\r\n"),
    ])

    karmada_tests = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/karmada/*.cpp"))
    values = json_values(karmada_tests)
    kind = lambda value: value.get("kind") if isinstance(value, dict) else None
    reviews = [v for v in values if kind(v) == "AdmissionReview"]
    bindings = [v for v in values if kind(v) == "ResourceBinding"]
    workloads = [v for v in values if kind(v) in ("Job", "Deployment")]
    clusters = [v for v in values if kind(v) == "Cluster"]
    compact = lambda value: json.dumps(value, separators=(",", ":"))
    # admission_test.cpp glues its review around the apiVersion.
    head, tail = raw_strings("tests/karmada/admission_test.cpp")[:2]
    for version in ("admission.k8s.io/v1", "admission.k8s.io/v1beta1"):
        review = json.loads(head + version + tail)
        reviews.append(review)
        update = json.loads(json.dumps(review))
        update["request"]["operation"] = "UPDATE"
        update["request"]["oldObject"] = update["request"]["object"]
        reviews.append(update)
    write("admission", [("review", compact(v)) for v in reviews] + [
        ("binding-create", compact({
            "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "705ab4f5", "operation": "CREATE",
                        "kind": {"group": "work.karmada.io", "version": "v1alpha2",
                                 "kind": "ResourceBinding"},
                        "object": bindings[0] if bindings else {}}})),
    ])
    write("binding", [("binding", compact(b)) for b in bindings] +
          [("binding-workload", compact([b, w])) for b in bindings[:2] for w in workloads[:3]])
    write("kube_objects", [("cluster", compact(c)) for c in clusters] + [
        ("nodes-pods", compact({"kind": "List", "items": [
            {"kind": "Node", "metadata": {"name": "gpu-0", "labels": {
                "nvidia.com/gpu.product": "A100"}},
             "spec": {"taints": [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]},
             "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8",
                                        "pods": "110"},
                        "conditions": [{"type": "Ready", "status": "True"}]}},
            {"kind": "Node", "metadata": {"name": "cordoned"}, "spec": {"unschedulable": True},
             "status": {"allocatable": {"cpu": "8"}}},
            {"kind": "Pod", "metadata": {"name": "train-0", "namespace": "ml",
                                         "labels": {"gantry.io/dispatch": "7"}},
             "spec": {"nodeName": "gpu-0", "containers": [
                 {"name": "main", "resources": {"requests": {"cpu": "4", "nvidia.com/gpu": 1}}}]},
             "status": {"phase": "Running"}},
            {"kind": "Pod", "metadata": {"name": "other", "namespace": "ml"},
             "spec": {"nodeName": "gpu-0",
                      "initContainers": [{"name": "sidecar", "restartPolicy": "Always",
                                          "resources": {"requests": {"memory": "1Gi"}}},
                                         {"name": "init", "resources": {
                                             "requests": {"cpu": "500m"}}}],
                      "containers": [{"name": "app", "resources": {
                          "requests": {"cpu": "1.5", "memory": "2Gi"}}}],
                      "resources": {"requests": {"cpu": "2"}},
                      "overhead": {"cpu": "100m"}},
             "status": {"phase": "Pending"}},
        ]})),
    ])
    write("watch_stream", [
        ("events", '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a",'
         '"resourceVersion":"5"}}}\n{"type":"BOOKMARK","object":{"metadata":'
         '{"resourceVersion":"9"}}}\r\n'),
        ("chunked", b'{"type":"MODIFIED","obj\xffect":{"metadata":{"name":"b"}}}\n\xff'
         b'{"type":"ERROR","object":{"kind":"Status","code":410}}'),
    ])
    # etcd 3.4's JSON gateway: bytes as base64, int64 as strings, one watch message per line.
    write("etcd_answer", [
        ("range", '{"header":{"cluster_id":"14841639068965178418","member_id":"10276657743932975437",'
         '"revision":"7","raft_term":"2"},"kvs":[{"key":"Z2FudHJ5L2pvYnMvYQ==","create_revision":"5",'
         '"mod_revision":"7","version":"2","value":"eyJhIjoxfQ==","lease":"7587862072907233025"}],'
         '"count":"1"}'),
        ("txn", '{"header":{"revision":"9"},"succeeded":true,"responses":[{"response_put":{"header":'
         '{"revision":"9"}}},{"response_range":{"header":{"revision":"9"},"kvs":[],"count":"0"}},'
         '{"response_delete_range":{"header":{"revision":"9"},"deleted":"1"}}]}'),
        ("watch", '{"result":{"header":{"revision":"3"},"created":true}}\n'
         '{"result":{"header":{"revision":"4"},"events":[{"kv":{"key":"YQ==","create_revision":"4",'
         '"mod_revision":"4","version":"1","value":"MQ=="}},{"type":"DELETE","kv":{"key":"YQ==",'
         '"mod_revision":"5"}}]}}\n'
         '{"result":{"header":{"revision":"5"},"canceled":true,"compact_revision":"3"}}\n'),
        ("error", '{"error":"etcdserver: requested lease not found","code":5,'
         '"message":"etcdserver: requested lease not found"}'),
        ("lease", '{"header":{"revision":"2"},"ID":"7587862072907233025","TTL":"10"}'),
    ])


if __name__ == "__main__":
    main()
