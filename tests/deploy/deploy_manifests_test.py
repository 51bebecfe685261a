#!/usr/bin/env python3
"""Checks deploy/ (hub and agents) without an API server, helm or a container engine.

- yamllint (deploy/.yamllint, --strict) on every YAML file and on the chart's
  rendered output;
- kubectl decodes every object (`kubectl annotate --local --dry-run=client`,
  which needs no discovery: see tests/karmada/deploy_manifests_test.py) and
  builds the kustomization (`kubectl kustomize`); kubectl 1.20 and 1.32 both;
- the Helm chart, rendered here by a tiny renderer that knows only the syntax
  the templates may use ({{ .Values.a.b }}, {{ .Release.Namespace }},
  {{- if .Values.x }} or {{- if eq .Values.x "s" }} ... {{- else }} ...
  {{- end }}), gives with default values the very objects of deploy/kubernetes/,
  with values-etcd.yaml those of deploy/kubernetes/ha/hub.yaml instead of the
  single hub, and its options do what they say;
- the highly available hub (deploy/kubernetes/ha/): its --store names the etcd
  Service there, the etcd members' initial cluster is exactly the StatefulSet's
  pods under its headless Service, probes, per-replica state, shared keys;
- RBAC: the grants the agent's ServiceAccount ends up with, per namespace,
  resource and verb, are exactly the intended ones (least privilege);
- the contract with the programs: every flag exists in their option parsers,
  addresses and namespaces agree between objects;
- systemd units: `systemd-analyze verify` when systemd is installed, and
  their fields;
- deploy/Containerfile: every Debian package it names exists (apt-cache), the
  build packages are scripts/bootstrap.sh's, and the runtime packages hold
  every library the built programs link.

Prints one line per check and "N passed, M failed"; exits non-zero on any
failure, and fails (never skips) when a tool it needs is missing, naming the
Debian package that has it.
"""

import copy
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile

SOURCE = pathlib.Path(os.environ.get("GANTRY_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BINARIES = pathlib.Path(os.environ.get("GANTRY_BINARY_DIR", SOURCE / "build")) / "bin"
DEPLOY = SOURCE / "deploy"
sys.path.insert(0, str(SOURCE / "tests" / "deploy"))
from manifest_checks import (Failure, check_yamllint, decoded_by_kubectl, expect,  # noqa: E402
                             expect_equal, run, run_checks)
KUBERNETES = DEPLOY / "kubernetes"
OCM = KUBERNETES / "ocm"
CHART = DEPLOY / "helm" / "gantry"
SYSTEMD = DEPLOY / "systemd"
PROMETHEUS = DEPLOY / "prometheus"
DASHBOARD = DEPLOY / "grafana" / "gantry-dashboard.json"
CONTAINERFILE = DEPLOY / "Containerfile"
YAMLLINT_CONFIG = DEPLOY / ".yamllint"

SYSTEM_NS, JOBS_NS, OCM_NS = "gantry-system", "gantry-jobs", "local"
AGENT_SA = ("gantry-agent", SYSTEM_NS)
IMAGE_USER = 65532

KNOWN_KINDS = {  # (apiVersion, kind) -> namespaced
    ("v1", "Namespace"): False,
    ("v1", "ServiceAccount"): True,
    ("v1", "ConfigMap"): True,
    ("v1", "Service"): True,
    ("v1", "PersistentVolumeClaim"): True,
    ("apps/v1", "Deployment"): True,
    ("apps/v1", "DaemonSet"): True,
    ("apps/v1", "StatefulSet"): True,
    ("policy/v1", "PodDisruptionBudget"): True,
    ("networking.k8s.io/v1", "NetworkPolicy"): True,
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): False,
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): False,
    ("rbac.authorization.k8s.io/v1", "Role"): True,
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): True,
}
MANIFESTS = ["namespace.yaml", "agent-rbac.yaml", "agent-configmap.yaml", "agent-node-daemonset.yaml",
             "agent-cluster-deployment.yaml", "hub.yaml"]

# The highly available hub: three hubs on etcd, instead of hub.yaml (deploy/kubernetes/ha/).
HA = KUBERNETES / "ha"
HA_MANIFESTS = ["etcd.yaml", "hub.yaml"]
ETCD_STORE = f"etcd://gantry-etcd.{SYSTEM_NS}.svc:2379/gantry"
VALUES_ETCD = CHART / "values-etcd.yaml"

KEYS_DIR = "/etc/gantry/keys"
# The agents' /metrics and /healthz (docs/metrics.md, "Agents"): beside the node socket's 7810.
AGENT_METRICS_PORT = 7811
AGENT_HTTP_FLAGS = ["--http-listen", f"0.0.0.0:{AGENT_METRICS_PORT}",
                    "--metrics-token-file", f"{KEYS_DIR}/metrics.token"]
NODE_COMMAND = ["gantry-agent", "--role", "node", "--cluster-agent",
                "tcp://gantry-cluster-agent.gantry-system.svc:7810", "--node-name", "$(NODE_NAME)",
                "--key", f"{KEYS_DIR}/agent.key", "--cluster-key", f"{KEYS_DIR}/agent.pub"] + AGENT_HTTP_FLAGS
CLUSTER_COMMAND = ["gantry-agent", "--role", "cluster", "--hub", "$(GANTRY_HUB)", "--cluster",
                   "$(GANTRY_CLUSTER)", "--node-listen", "tcp://0.0.0.0:7810", "--kubeconfig", "in-cluster",
                   "--lease-namespace", SYSTEM_NS, "--lease-name", "gantry-cluster-agent",
                   "--identity", "$(POD_NAME)", "--executor", "kubernetes", "--namespace", JOBS_NS,
                   "--key", f"{KEYS_DIR}/agent.key", "--hub-key", f"{KEYS_DIR}/hub.pub"] + AGENT_HTTP_FLAGS
HUB_COMMAND = ["gantry-hub", "--agents", "tcp://0.0.0.0:7800", "--admin", "tcp://0.0.0.0:7801",
               "--state", "/var/lib/gantry", "--key", f"{KEYS_DIR}/hub.key", "--access", f"{KEYS_DIR}/access.yaml",
               "--http-listen", "0.0.0.0:7802", "--metrics-token-file", f"{KEYS_DIR}/metrics.token"]
# A standby names the leader by the host it advertises: its pod's DNS name under the headless
# Service (a wildcard bind address is no address to give gantryctl).
HA_ADVERTISE = ["--advertise-host", f"$(POD_NAME).gantry-hub-pods.{SYSTEM_NS}.svc"]
HA_HUB_COMMAND = HUB_COMMAND[:HUB_COMMAND.index("--state")] + HA_ADVERTISE + \
    HUB_COMMAND[HUB_COMMAND.index("--state"):HUB_COMMAND.index("--key")] + ["--store", ETCD_STORE] + \
    HUB_COMMAND[HUB_COMMAND.index("--key"):]
# Where each workload's key files come from: {Secret name: [keys]} (docs/security.md; the
# Secrets themselves are made by the operator, deploy/README.md "Keys", never shipped here).
KEY_SECRETS = {
    "gantry-hub": {"gantry-hub-key": ["hub.key"], "gantry-access": ["access.yaml"],
                   "gantry-metrics-token": ["metrics.token"]},
    "gantry-cluster-agent": {"gantry-agent-keys": ["agent.key", "hub.pub"],
                             "gantry-metrics-token": ["metrics.token"]},
    "gantry-agent-node": {"gantry-agent-keys": ["agent.key", "agent.pub"],
                          "gantry-metrics-token": ["metrics.token"]},
}
AGENT_WORKLOADS = ("gantry-cluster-agent", "gantry-agent-node")

# Libraries every debian:bookworm-slim image has (Priority: required).
BASE_IMAGE_PACKAGES = {"libc6", "libstdc++6", "libgcc-s1"}


def require_tools():
    missing = []
    for tool, package in (("yamllint", "yamllint"), ("kubectl", "kubernetes-client"), ("apt-cache", "apt"),
                          ("readelf", "binutils"), ("dpkg", "dpkg"), ("ldconfig", "libc-bin"),
                          ("promtool", "prometheus")):
        if shutil.which(tool) is None:
            missing.append(f"{tool} not found: apt-get install -y {package}")
    try:
        import yaml  # noqa: F401
    except ImportError:
        missing.append("PyYAML not found: apt-get install -y python3-yaml")
    return missing


# --- YAML and objects ---------------------------------------------------------


def load_documents(text):
    import yaml

    return [d for d in yaml.safe_load_all(text) if d is not None]


def documents(path):
    return load_documents(path.read_text(encoding="utf-8"))


def key_of(obj):
    return (obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"])


def by_key(objects):
    keyed = {}
    for obj in objects:
        expect(key_of(obj) not in keyed, f"{key_of(obj)} defined twice")
        keyed[key_of(obj)] = obj
    return keyed


def manifest_objects():
    return by_key([d for name in MANIFESTS for d in documents(KUBERNETES / name)])


def ha_objects():
    return by_key([d for name in HA_MANIFESTS for d in documents(HA / name)])


def ocm_binding():
    (binding,) = documents(OCM / "agent-ocm-rolebinding.yaml")
    return binding


def the(objects, kind, name, namespace=SYSTEM_NS):
    key = (kind, namespace if KNOWN_KINDS[(objects_api(kind), kind)] else "", name)
    expect(key in objects, f"no {kind} {namespace}/{name}")
    return objects[key]


def objects_api(kind):
    return next(api for api, k in KNOWN_KINDS if k == kind)


def first_difference(actual, expected, path="$"):
    if type(actual) is not type(expected):
        return f"{path}: {actual!r} != {expected!r}"
    if isinstance(actual, dict):
        for k in sorted(set(actual) | set(expected), key=str):
            if k not in actual or k not in expected:
                return f"{path}.{k}: only in {'rendered' if k in actual else 'expected'}"
            found = first_difference(actual[k], expected[k], f"{path}.{k}")
            if found:
                return found
        return None
    if isinstance(actual, list):
        if len(actual) != len(expected):
            return f"{path}: {len(actual)} items != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            found = first_difference(a, e, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if actual == expected else f"{path}: {actual!r} != {expected!r}"


def expect_same_objects(actual, expected, what):
    expect_equal(set(actual), set(expected), f"{what}: objects")
    for key in sorted(expected):
        difference = first_difference(actual[key], expected[key])
        expect(difference is None, f"{what}: {key} differs at {difference}")


# --- the chart renderer ---------------------------------------------------------

ACTION = re.compile(r"\{\{(-?)\s*(.*?)\s*(-?)\}\}", re.S)


def tokens(template, where):
    """Text and actions, with Go's {{- and -}} whitespace trimming applied."""
    parts, at = [], 0
    for match in ACTION.finditer(template):
        parts.append(["text", template[at:match.start()]])
        if match.group(1):
            parts[-1][1] = parts[-1][1].rstrip()
        parts.append(["action", match.group(2), match.group(3) == "-"])
        at = match.end()
    parts.append(["text", template[at:]])
    for i, part in enumerate(parts):
        if part[0] == "action" and part[2]:
            parts[i + 1][1] = parts[i + 1][1].lstrip()
    expect("{{" not in "".join(p[1] for p in parts if p[0] == "text"), f"{where}: unclosed {{{{")
    return parts


def lookup(expression, context, where):
    expect(re.fullmatch(r"\.(Values|Release)(\.[A-Za-z][A-Za-z0-9]*)+", expression),
           f"{where}: unsupported template expression {expression!r}")
    value = context
    for name in expression.split(".")[1:]:
        expect(isinstance(value, dict) and name in value, f"{where}: {expression} has no value")
        value = value[name]
    return value


def formatted(value, expression, where):
    expect(not isinstance(value, (dict, list)), f"{where}: {expression} is not a scalar")
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def condition(expression, context, where):
    """An if's condition: a value (Go: "", 0, false are false), or `eq VALUE "string"`."""
    compared = re.fullmatch(r'eq\s+(\S+)\s+"([^"\\]*)"', expression)
    if compared:
        return lookup(compared.group(1), context, where) == compared.group(2)
    return bool(lookup(expression, context, where))


def render_template(template, context, where):
    output, open_ifs = [], []  # open_ifs: whether each enclosing branch is taken
    seen_else = []  # per open if: whether its {{ else }} came
    for part in tokens(template, where):
        emitting = all(open_ifs)
        if part[0] == "text":
            if emitting:
                output.append(part[1])
            continue
        action = part[1]
        if action.startswith("if "):
            open_ifs.append(condition(action[3:].strip(), context, where))
            seen_else.append(False)
        elif action == "else":
            expect(open_ifs and not seen_else[-1], f"{where}: {{{{ else }}}} without if, or twice")
            open_ifs[-1], seen_else[-1] = not open_ifs[-1], True
        elif action == "end":
            expect(open_ifs, f"{where}: {{{{ end }}}} without if")
            open_ifs.pop()
            seen_else.pop()
        else:
            value = lookup(action, context, where)
            if emitting:
                output.append(formatted(value, action, where))
    expect(not open_ifs, f"{where}: if without {{{{ end }}}}")
    return "".join(output)


def merged(base, overrides):
    result = copy.deepcopy(base)
    for k, v in overrides.items():
        result[k] = merged(result[k], v) if isinstance(v, dict) and isinstance(result.get(k), dict) else v
    return result


def render_chart(overrides=None, namespace=SYSTEM_NS):
    """Rendered text, Helm-like: each template after a `---` and a `# Source:` line."""
    import yaml

    values = merged(yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8")), overrides or {})
    context = {"Values": values, "Release": {"Namespace": namespace, "Name": "gantry"}}
    rendered = []
    for path in sorted((CHART / "templates").glob("*.yaml")):
        text = render_template(path.read_text(encoding="utf-8"), context, path.name)
        if text.strip():
            rendered.append(f"---\n# Source: gantry/templates/{path.name}\n{text.strip(chr(10))}\n")
    return "".join(rendered)


def chart_objects(overrides=None, namespace=SYSTEM_NS):
    return by_key(load_documents(render_chart(overrides, namespace)))


# --- tools ------------------------------------------------------------------------


def check_kubectl_decodes(path):
    objects = decoded_by_kubectl(path)
    expect_equal(len(objects), len(documents(path)), f"objects kubectl decoded from {path.name}")
    for obj in objects:
        expect(obj.get("metadata", {}).get("annotations", {}).get("gantry.io/checked") == "true",
               f"{obj.get('kind')} came back from kubectl unannotated")


def with_scratch_file(name, text, check):
    with tempfile.TemporaryDirectory() as scratch:
        path = pathlib.Path(scratch, name)
        path.write_text(text, encoding="utf-8")
        check(path)


def expect_kustomization_builds(directory, manifests, objects, what):
    """`kubectl kustomize DIRECTORY` lists `manifests` and builds exactly `objects`."""
    result = run(["kubectl", "kustomize", str(directory)])
    expect(result.returncode == 0, f"{what}:\n{result.stderr}")
    (kustomization,) = documents(directory / "kustomization.yaml")
    expect_equal(kustomization["resources"], manifests, f"{what}: kustomization resources")
    expect_same_objects(by_key(load_documents(result.stdout)), objects, what)


def check_kustomize_builds():
    expect_kustomization_builds(KUBERNETES, MANIFESTS, manifest_objects(), "kubectl kustomize")


def check_tools_catch_bad_input():
    def refused_by_kubectl(path):
        result = run(["kubectl", "annotate", "--local", "--dry-run=client", "-o", "json",
                      "--kubeconfig", "/dev/null", "-f", str(path), "a=b"])
        expect(result.returncode != 0, "kubectl accepted a boolean metadata.namespace")

    def refused_by_yamllint(path):
        result = run(["yamllint", "--strict", "-c", str(YAMLLINT_CONFIG), str(path)])
        expect(result.returncode != 0, "yamllint accepted a 135-character line")

    # `namespace: y` is a YAML 1.1 boolean: kubectl must refuse it.
    with_scratch_file("bad.yaml", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: x\n  namespace: y\n",
                      refused_by_kubectl)
    with_scratch_file("long.yaml", "key: " + "word " * 26 + "\n", refused_by_yamllint)
    for template in ('{{ include "x" . }}', "{{ .Values.nope }}", "{{- if .Values.image }}", "{{ end }}",
                     "{{ else }}", "{{ if .Values.image }}{{ else }}{{ else }}{{ end }}",
                     '{{ if eq .Values.image i }}{{ end }}', '{{ if ne .Values.image "i" }}{{ end }}'):
        try:
            render_template(template, {"Values": {"image": "i"}, "Release": {}}, "scratch")
        except Failure:
            continue
        raise Failure(f"the renderer accepted {template!r}")
    expect_equal(render_template("a:\n  {{- if .Values.x }}\n  b: {{ .Values.y }}\n  {{- end }}\n",
                                 {"Values": {"x": True, "y": False}}, "scratch"), "a:\n  b: false\n",
                 "the renderer's whitespace trimming")
    branches = '{{ if eq .Values.s "etcd" }}e{{ else }}{{ if .Values.x }}x{{ end }}s{{ end }}'
    for values, expected in (({"s": "etcd", "x": True}, "e"), ({"s": "sqlite", "x": True}, "xs"),
                             ({"s": "sqlite", "x": False}, "s")):
        expect_equal(render_template(branches, {"Values": values}, "scratch"), expected, f"eq and else with {values}")


# --- structure ---------------------------------------------------------------------


def check_structure(path):
    for document in documents(path):
        key = (document.get("apiVersion"), document.get("kind"))
        expect(key in KNOWN_KINDS, f"unknown apiVersion/kind {key}")
        metadata = document.get("metadata") or {}
        expect(metadata.get("name"), f"{document['kind']} without metadata.name")
        if KNOWN_KINDS[key]:
            expect(metadata.get("namespace"), f"{document['kind']} {metadata['name']} without a namespace")
        else:
            expect("namespace" not in metadata, f"cluster-scoped {document['kind']} has a namespace")
        expect((metadata.get("labels") or {}).get("app.kubernetes.io/part-of") == "gantry",
               f"{document['kind']} {metadata['name']} without app.kubernetes.io/part-of: gantry")


def workloads(objects):
    return [o for o in objects.values() if o["kind"] in ("Deployment", "DaemonSet", "StatefulSet")]


def check_selectors(objects):
    for workload in workloads(objects):
        spec = workload["spec"]
        expect(spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items(),
               f"{workload['metadata']['name']}: selector does not match its pods")
    for service in (o for o in objects.values() if o["kind"] == "Service"):
        targets = [w for w in workloads(objects)
                   if service["spec"]["selector"].items() <= w["spec"]["template"]["metadata"]["labels"].items()]
        expect(len(targets) == 1, f"Service {service['metadata']['name']} selects {len(targets)} workloads")
        (container,) = targets[0]["spec"]["template"]["spec"]["containers"]
        named = {p["name"] for p in container.get("ports", [])}
        for port in service["spec"]["ports"]:
            expect(port["targetPort"] in named, f"Service {service['metadata']['name']}: no port {port['targetPort']}")


# --- RBAC ---------------------------------------------------------------------------


def grants_of(subject, objects):
    """(scope, apiGroup, resource, verb) granted to a ServiceAccount; scope "*" = cluster-wide."""
    granted = set()
    for binding in (o for o in objects.values() if o["kind"] in ("ClusterRoleBinding", "RoleBinding")):
        subjects = {(s["name"], s.get("namespace")) for s in binding["subjects"] if s["kind"] == "ServiceAccount"}
        if subject not in subjects:
            continue
        scope = binding["metadata"].get("namespace", "*")
        ref = binding["roleRef"]
        role_key = (ref["kind"], scope if ref["kind"] == "Role" else "", ref["name"])
        expect(role_key in objects, f"{binding['metadata']['name']} binds a missing {role_key}")
        for rule in objects[role_key]["rules"]:
            expect(set(rule) == {"apiGroups", "resources", "verbs"}, f"{ref['name']}: unexpected rule fields {rule}")
            granted |= {(scope, g, r, v) for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}
    return granted


def agent_grants(with_ocm):
    wanted = {("*", "", r, v) for r in ("nodes", "pods") for v in ("get", "list", "watch")}
    wanted |= {(JOBS_NS, "", "pods", v) for v in ("create", "delete")}
    wanted |= {(JOBS_NS, "", "pods/log", "get")}  # gantryctl logs
    wanted |= {(JOBS_NS, "", "services", v) for v in ("create", "patch", "delete")}
    wanted |= {(JOBS_NS, "", r, v) for r in ("configmaps", "secrets") for v in ("create", "delete")}
    wanted |= {(JOBS_NS, "batch.volcano.sh", "jobs", v) for v in ("create", "patch", "delete", "get", "list", "watch")}
    wanted |= {(SYSTEM_NS, "coordination.k8s.io", "leases", v) for v in ("get", "create", "update")}
    if with_ocm:
        group = "cluster.open-cluster-management.io"
        wanted |= {(OCM_NS, group, "addonplacementscores", v) for v in ("get", "create", "update")}
        wanted |= {(OCM_NS, group, "addonplacementscores/status", "update")}
    return wanted


def check_rbac_least_privilege():
    objects = manifest_objects()
    expect_equal(grants_of(AGENT_SA, objects), agent_grants(False), "agent grants (deploy/kubernetes)")
    objects[key_of(ocm_binding())] = ocm_binding()
    expect_equal(grants_of(AGENT_SA, objects), agent_grants(True), "agent grants (with ocm/)")
    # Secrets: the ssh plugin's keys are created and deleted in the jobs namespace, never read.
    secret_grants = {g for g in grants_of(AGENT_SA, objects) if g[2] == "secrets"}
    expect_equal(secret_grants, {(JOBS_NS, "", "secrets", v) for v in ("create", "delete")}, "secret grants")
    for obj in objects.values():
        expect("*" not in json.dumps(obj.get("rules", [])), f"{obj['metadata']['name']} has a wildcard")
    accounts = {(o["metadata"]["name"], o["metadata"]["namespace"]) for o in objects.values()
                if o["kind"] == "ServiceAccount"}
    expect_equal(accounts, {AGENT_SA}, "ServiceAccounts")


def check_token_mounts():
    for workload in workloads(manifest_objects()) + workloads(ha_objects()):
        pod = workload["spec"]["template"]["spec"]
        name = workload["metadata"]["name"]
        if name == "gantry-cluster-agent":
            expect_equal(pod.get("serviceAccountName"), "gantry-agent", f"{name} serviceAccountName")
            expect(pod.get("automountServiceAccountToken", True), f"{name} needs its token")
        else:  # the hub and the node agents never call the API server
            expect_equal(pod.get("automountServiceAccountToken"), False, f"{name} automountServiceAccountToken")
            expect("serviceAccountName" not in pod, f"{name} names a ServiceAccount")


# --- workloads ----------------------------------------------------------------------


def container_of(workload):
    (container,) = workload["spec"]["template"]["spec"]["containers"]
    return container


def env_of(container):
    return {e["name"]: e for e in container.get("env", [])}


def check_pod_security(workload):
    pod = workload["spec"]["template"]["spec"]
    container = container_of(workload)
    expect_equal(pod["securityContext"]["runAsUser"], IMAGE_USER, "runAsUser (the image's user)")
    expect_equal(pod["securityContext"]["runAsNonRoot"], True, "runAsNonRoot")
    expect_equal(container["securityContext"]["allowPrivilegeEscalation"], False, "allowPrivilegeEscalation")
    expect_equal(container["securityContext"]["capabilities"], {"drop": ["ALL"]}, "capabilities")
    expect_equal(container["image"], "gantry:latest", "image")
    for volume in pod.get("volumes", []):
        expect("hostPath" not in volume, f"{workload['metadata']['name']} mounts a hostPath")


def expect_variables_defined(container):
    defined = set(env_of(container))
    used = {v for arg in container["command"] for v in re.findall(r"\$\((\w+)\)", arg)}
    expect(used <= defined, f"{container['name']}: $(...) without env: {sorted(used - defined)}")


def check_node_daemonset():
    objects = manifest_objects()
    daemonset = the(objects, "DaemonSet", "gantry-agent-node")
    container = container_of(daemonset)
    expect_equal(container["command"], NODE_COMMAND, "node agent command")
    expect_variables_defined(container)
    env = env_of(container)
    expect_equal(env["NODE_NAME"]["valueFrom"], {"fieldRef": {"fieldPath": "spec.nodeName"}}, "NODE_NAME")
    expect_equal((env["NVIDIA_VISIBLE_DEVICES"]["value"], env["NVIDIA_DRIVER_CAPABILITIES"]["value"]),
                 ("all", "utility"), "NVIDIA runtime request (NVML only)")
    expect("resources" not in container or "nvidia.com/gpu" not in json.dumps(container["resources"]),
           "the node agent must not take a GPU")
    tolerations = daemonset["spec"]["template"]["spec"]["tolerations"]
    expect({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in tolerations,
           "no toleration for nvidia.com/gpu")
    check_pod_security(daemonset)
    service = the(objects, "Service", "gantry-cluster-agent")
    (port,) = service["spec"]["ports"]
    expect_equal(NODE_COMMAND[4], f"tcp://{service['metadata']['name']}.{SYSTEM_NS}.svc:{port['port']}",
                 "--cluster-agent is the cluster agent's Service")


def check_cluster_deployment():
    objects = manifest_objects()
    deployment = the(objects, "Deployment", "gantry-cluster-agent")
    expect_equal(deployment["spec"]["replicas"], 2, "cluster agent replicas")
    container = container_of(deployment)
    expect_equal(container["command"], CLUSTER_COMMAND, "cluster agent command")
    expect_variables_defined(container)
    env = env_of(container)
    expect_equal(env["POD_NAME"]["valueFrom"], {"fieldRef": {"fieldPath": "metadata.name"}}, "POD_NAME")
    config = the(objects, "ConfigMap", "gantry-agent")
    for name in ("GANTRY_HUB", "GANTRY_CLUSTER"):
        ref = env[name]["valueFrom"]["configMapKeyRef"]
        expect_equal(ref, {"name": "gantry-agent", "key": name}, f"{name} source")
        expect(config["data"].get(name), f"ConfigMap gantry-agent has no {name}")
    hub = the(objects, "Service", "gantry-hub")
    agents_port = next(p["port"] for p in hub["spec"]["ports"] if p["name"] == "agents")
    expect_equal(config["data"]["GANTRY_HUB"], f"tcp://gantry-hub.{SYSTEM_NS}.svc:{agents_port}",
                 "default hub endpoint is the hub Service")
    expect_equal({p["name"]: p["containerPort"] for p in container["ports"]},
                 {"nodes": 7810, "metrics": AGENT_METRICS_PORT}, "ports")
    the(objects, "Role", "gantry-agent-lease")  # the Lease namespace is where the Role is
    the(objects, "Role", "gantry-agent-jobs", JOBS_NS)
    the(objects, "Namespace", JOBS_NS)
    check_pod_security(deployment)


def check_hub():
    objects = manifest_objects()
    deployment = the(objects, "Deployment", "gantry-hub")
    spec = deployment["spec"]
    expect_equal((spec["replicas"], spec["strategy"]), (1, {"type": "Recreate"}), "hub replicas and strategy")
    container = container_of(deployment)
    expect_equal(container["command"], HUB_COMMAND, "hub command")
    expect_equal({p["name"]: p["containerPort"] for p in container["ports"]},
                 {"agents": 7800, "admin": 7801, "metrics": 7802}, "hub ports")
    listen = container["command"][container["command"].index("--http-listen") + 1]
    expect_equal(int(listen.rsplit(":", 1)[1]), 7802, "--http-listen port vs the metrics port")
    expect_equal(container["livenessProbe"]["httpGet"], {"path": "/healthz", "port": "metrics"}, "hub liveness")
    expect(container["livenessProbe"]["timeoutSeconds"] > 5, "liveness timeout shorter than /healthz's 5 s wait")
    expect("tcpSocket" in container["readinessProbe"],
           "hub readiness must not be /readyz: a recovering hub waits for agents the Service would keep out")
    service = the(objects, "Service", "gantry-hub")
    expect_equal({p["port"]: p["targetPort"] for p in service["spec"]["ports"]},
                 {7800: "agents", 7801: "admin", 7802: "metrics"}, "hub Service ports")
    volumes = {v["name"]: v for v in spec["template"]["spec"]["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    expect_equal(volumes[mounts["/var/lib/gantry"]]["persistentVolumeClaim"], {"claimName": "gantry-state"},
                 "state volume")
    the(objects, "PersistentVolumeClaim", "gantry-state")
    check_pod_security(deployment)


# --- the highly available hub (deploy/kubernetes/ha) --------------------------------


def check_ha_kustomize_builds():
    expect_kustomization_builds(HA, HA_MANIFESTS, ha_objects(), "kubectl kustomize ha")


def pod_spec(workload):
    return workload["spec"]["template"]["spec"]


def selects(service_or_budget, workload):
    """Whether a Service (a label map) or a PodDisruptionBudget (a label selector) takes a workload's pods."""
    selector, labels = service_or_budget["spec"]["selector"], workload["spec"]["template"]["metadata"]["labels"]
    if service_or_budget["kind"] == "Service":
        return selector.items() <= labels.items()
    return selected_by(selector, labels)


def headless_service_of(objects, statefulset):
    """The Service a StatefulSet names: headless, publishing pods before they are ready (members
    and standbys must resolve each other's names while not ready), selecting its pods."""
    service = the(objects, "Service", statefulset["spec"]["serviceName"], statefulset["metadata"]["namespace"])
    name = service["metadata"]["name"]
    expect_equal(service["spec"].get("clusterIP"), "None", f"Service {name} headless")
    expect_equal(service["spec"].get("publishNotReadyAddresses"), True, f"Service {name} publishNotReadyAddresses")
    expect(selects(service, statefulset), f"Service {name} does not select {statefulset['metadata']['name']}'s pods")
    return service


def anti_affinity_terms(workload):
    """(required, term) of each pod anti-affinity term that keeps this workload's pods on different nodes."""
    anti = pod_spec(workload).get("affinity", {}).get("podAntiAffinity", {})
    terms = [(True, t) for t in anti.get("requiredDuringSchedulingIgnoredDuringExecution", [])]
    terms += [(False, t["podAffinityTerm"]) for t in anti.get("preferredDuringSchedulingIgnoredDuringExecution", [])]
    labels = workload["spec"]["template"]["metadata"]["labels"]
    return [(required, term) for required, term in terms if term["topologyKey"] == "kubernetes.io/hostname"
            and selected_by(term["labelSelector"], labels)]


def budget_of(objects, workload):
    (budget,) = [o for o in objects.values() if o["kind"] == "PodDisruptionBudget" and selects(o, workload)]
    return budget


def state_volume_is_per_replica(statefulset, container):
    """--state is mounted from the StatefulSet's volumeClaimTemplates (one PVC per pod), never a
    pod volume every replica would share: each replica locks its own directory."""
    state = container["command"][container["command"].index("--state") + 1]
    (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == state]
    templates = {t["metadata"]["name"]: t for t in statefulset["spec"].get("volumeClaimTemplates", [])}
    expect(mount["name"] in templates, f"--state {state} is not on a volumeClaimTemplate")
    expect(mount["name"] not in {v["name"] for v in pod_spec(statefulset).get("volumes", [])},
           f"--state {state}: volume {mount['name']} also a pod volume")
    expect_equal(templates[mount["name"]]["spec"]["accessModes"], ["ReadWriteOnce"], "state volume access")


def check_ha_hub_workload(objects, replicas=3, command=HA_HUB_COMMAND, namespace=SYSTEM_NS):
    hub = the(objects, "StatefulSet", "gantry-hub", namespace)
    spec = hub["spec"]
    expect_equal((spec["replicas"], spec["podManagementPolicy"]), (replicas, "Parallel"), "hub replicas and policy")
    # A rolling update waits for each new pod to be ready; a standby never is.
    expect_equal(spec.get("updateStrategy"), {"type": "OnDelete"}, "hub updateStrategy")
    container = container_of(hub)
    expect_equal(container["command"], command, "hub command")
    expect_variables_defined(container)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    expect_equal(ports, {"agents": 7800, "admin": 7801, "metrics": 7802}, "hub ports")
    expect_equal(int(command[command.index("--agents") + 1].rsplit(":", 1)[1]), ports["agents"], "--agents port")
    listen = command[command.index("--http-listen") + 1]
    expect_equal(int(listen.rsplit(":", 1)[1]), ports["metrics"], "--http-listen port vs the metrics port")
    # Liveness: /healthz, answered by leader and standbys. Readiness: the agent socket, bound by
    # the replica holding the store only; /readyz would keep a hub that has just taken over (and
    # waits for its agents to report) out of the very Service its agents come through.
    expect_equal(container["livenessProbe"]["httpGet"], {"path": "/healthz", "port": "metrics"}, "hub liveness")
    expect(container["livenessProbe"]["timeoutSeconds"] > 5, "liveness timeout shorter than /healthz's 5 s wait")
    expect_equal(container["readinessProbe"].get("tcpSocket"), {"port": "agents"},
                 "hub readiness: the agent socket only the holder binds (not /readyz)")
    state_volume_is_per_replica(hub, container)
    check_pod_security(hub)
    expect_equal(pod_spec(hub).get("automountServiceAccountToken"), False, "hub automountServiceAccountToken")
    expect(anti_affinity_terms(hub), "hub replicas not spread across nodes")
    headless = headless_service_of(objects, hub)
    advertised = command[command.index("--advertise-host") + 1]
    expect_equal(advertised, f"$(POD_NAME).{headless['metadata']['name']}.{namespace}.svc",
                 "--advertise-host: the pod's name under the headless Service")
    env = {e["name"]: e.get("valueFrom") for e in container.get("env", [])}
    expect_equal(env.get("POD_NAME"), {"fieldRef": {"fieldPath": "metadata.name"}}, "POD_NAME from the pod's name")
    expect_equal({p["port"]: p["targetPort"] for p in headless["spec"]["ports"]},
                 {7800: "agents", 7801: "admin", 7802: "metrics"}, "headless Service ports")
    # The client Service is the single hub's: agents' GANTRY_HUB and gantryctl need no change.
    client = the(objects, "Service", "gantry-hub", namespace)
    expect(selects(client, hub) and not client["spec"].get("publishNotReadyAddresses"),
           "Service gantry-hub must route to ready (holding) replicas only")
    expect(client["spec"].get("clusterIP") != "None", "Service gantry-hub must not be headless")
    budget = budget_of(objects, hub)
    expect_equal((budget["spec"].get("minAvailable"), budget["spec"].get("maxUnavailable")), (1, None),
                 "hub PodDisruptionBudget: only the holder counts as healthy, so minAvailable 1")
    # The ServiceMonitor scrapes the hub through Service gantry-hub alone.
    (monitor,) = documents(PROMETHEUS / "servicemonitor.yaml")
    monitored = {o["metadata"]["name"] for o in objects.values() if o["kind"] == "Service"
                 and monitor["spec"]["selector"]["matchLabels"].items() <= o["metadata"]["labels"].items()}
    expect(monitored <= {"gantry-hub"}, f"the ServiceMonitor also selects {sorted(monitored - {'gantry-hub'})}")
    return hub


def check_ha_hub():
    objects = ha_objects()
    hub = check_ha_hub_workload(objects)
    expect_same_objects({k: v for k, v in objects.items() if k == ("Service", SYSTEM_NS, "gantry-hub")},
                        {k: v for k, v in manifest_objects().items() if k == ("Service", SYSTEM_NS, "gantry-hub")},
                        "ha Service gantry-hub vs hub.yaml's")
    # The same Secrets (hence the same hub keypair) in every replica.
    check_key_mounts({key_of(hub): hub})
    expect_equal(token_secret_of(hub), token_secret_of(the(manifest_objects(), "Deployment", "gantry-hub")),
                 "metrics token Secret")
    check_selectors(objects)


def env_value(container, name):
    return env_of(container)[name]["value"]


def url_port(url):
    return int(url.rsplit(":", 1)[1])


def check_ha_store_is_the_etcd_service():
    """--store etcd://HOST:PORT/PREFIX names etcd.yaml's client Service, on the port its members
    listen for clients, behind which only etcd's pods are."""
    objects = ha_objects()
    command = container_of(the(objects, "StatefulSet", "gantry-hub"))["command"]
    store = command[command.index("--store") + 1]
    match = re.fullmatch(r"etcd://([^/,]+):(\d+)(/[^/]+)", store)
    expect(match, f"--store {store}: not etcd://HOST:PORT/PREFIX with one endpoint")
    host, port = match.group(1), int(match.group(2))
    name, namespace, suffix = (host.split(".") + ["", ""])[:3]
    expect_equal((namespace, suffix), (SYSTEM_NS, "svc"), f"--store host {host}: not SERVICE.{SYSTEM_NS}.svc")
    service = the(objects, "Service", name)
    expect(service["spec"].get("clusterIP") != "None", f"--store names headless Service {name}")
    (service_port,) = [p for p in service["spec"]["ports"] if p["port"] == port]
    etcd = the(objects, "StatefulSet", "gantry-etcd")
    expect(selects(service, etcd), f"Service {name} does not select the etcd members")
    container = container_of(etcd)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    expect_equal(ports.get(service_port["targetPort"]), url_port(env_value(container, "ETCD_LISTEN_CLIENT_URLS")),
                 f"Service {name} port {port} vs the members' client port")
    # The NetworkPolicy lets the hub's pods reach that port.
    hub_labels = the(objects, "StatefulSet", "gantry-hub")["spec"]["template"]["metadata"]["labels"]
    (policy,) = [o for o in objects.values() if o["kind"] == "NetworkPolicy"]
    expect(selected_by(policy["spec"]["podSelector"], etcd["spec"]["template"]["metadata"]["labels"]),
           "the NetworkPolicy does not select the etcd members")
    allowed = {(p["port"], "hub" if selected_by(f["podSelector"], hub_labels) else "etcd")
               for rule in policy["spec"]["ingress"] for f in rule["from"] for p in rule["ports"]
               if selected_by(f["podSelector"], hub_labels)
               or selected_by(f["podSelector"], etcd["spec"]["template"]["metadata"]["labels"])}
    expect_equal(allowed, {(service_port["targetPort"], "hub"), ("client", "etcd"), ("peer", "etcd")},
                 "NetworkPolicy: (port, from)")


def check_etcd_statefulset():
    """Three members, each named after its pod, advertising its DNS name under the headless
    Service; the initial cluster lists exactly those members' peer URLs."""
    objects = ha_objects()
    etcd = the(objects, "StatefulSet", "gantry-etcd")
    spec, name = etcd["spec"], etcd["metadata"]["name"]
    expect_equal((spec["replicas"], spec["podManagementPolicy"]), (3, "Parallel"), "etcd replicas and policy")
    container = container_of(etcd)
    expect(re.fullmatch(r"registry\.k8s\.io/etcd:3\.5\.\d+-0", container["image"]), f"etcd image {container['image']}")
    expect_equal(container["command"], ["/usr/local/bin/etcd"], "etcd command (configured by ETCD_* variables)")
    # $(VAR) in a variable expands only variables defined before it.
    defined = []
    for variable in container["env"]:
        used = set(re.findall(r"\$\((\w+)\)", variable.get("value", "")))
        expect(used <= set(defined), f"{variable['name']} uses {sorted(used - set(defined))} before definition")
        defined.append(variable["name"])
    env = env_of(container)
    expect_equal(env["POD_NAME"]["valueFrom"], {"fieldRef": {"fieldPath": "metadata.name"}}, "POD_NAME")
    expect_equal(env_value(container, "ETCD_NAME"), "$(POD_NAME)", "ETCD_NAME")
    peers = headless_service_of(objects, etcd)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    peer_port = url_port(env_value(container, "ETCD_LISTEN_PEER_URLS"))
    expect_equal(ports["peer"], peer_port, "peer port")
    expect_equal(ports["client"], url_port(env_value(container, "ETCD_LISTEN_CLIENT_URLS")), "client port")
    expect({p["targetPort"] for p in peers["spec"]["ports"]} >= {"peer"}, "headless Service without the peer port")
    domain = f"{peers['metadata']['name']}.{etcd['metadata']['namespace']}.svc"
    expect_equal(env_value(container, "ETCD_INITIAL_ADVERTISE_PEER_URLS"), f"http://$(POD_NAME).{domain}:{peer_port}",
                 "the member's peer URL")
    expect_equal(env_value(container, "ETCD_ADVERTISE_CLIENT_URLS"), f"http://$(POD_NAME).{domain}:{ports['client']}",
                 "the member's client URL")
    members = dict(m.split("=", 1) for m in env_value(container, "ETCD_INITIAL_CLUSTER").split(","))
    expect_equal(members, {f"{name}-{i}": f"http://{name}-{i}.{domain}:{peer_port}" for i in range(spec["replicas"])},
                 "ETCD_INITIAL_CLUSTER vs the StatefulSet's pods")
    expect_equal(env_value(container, "ETCD_INITIAL_CLUSTER_STATE"), "new", "ETCD_INITIAL_CLUSTER_STATE")
    expect(env_value(container, "ETCD_AUTO_COMPACTION_RETENTION"), "no auto-compaction: the quota fills up")
    # Probes on the metrics listener (plain http whatever the client port speaks).
    metrics_port = url_port(env_value(container, "ETCD_LISTEN_METRICS_URLS"))
    expect_equal(ports["metrics"], metrics_port, "metrics port")
    expect_equal(container["readinessProbe"]["httpGet"], {"path": "/health", "port": "metrics"}, "etcd readiness")
    expect_equal(container["livenessProbe"]["httpGet"], {"path": "/health?serializable=true", "port": "metrics"},
                 "etcd liveness (this member only)")
    # Data on a volume per member, the data directory inside it.
    data_dir = env_value(container, "ETCD_DATA_DIR")
    (mount,) = [m for m in container["volumeMounts"] if data_dir.startswith(m["mountPath"] + "/")]
    expect(mount["name"] in {t["metadata"]["name"] for t in spec["volumeClaimTemplates"]},
           "etcd data not on a volumeClaimTemplate")
    expect(any(required for required, _ in anti_affinity_terms(etcd)), "etcd members may share a node")
    expect_equal(budget_of(objects, etcd)["spec"], {"maxUnavailable": 1, "selector": spec["selector"]},
                 "etcd PodDisruptionBudget (a quorum of 2 stays)")
    pod = pod_spec(etcd)
    expect_equal(pod["automountServiceAccountToken"], False, "etcd automountServiceAccountToken")
    expect_equal((pod["securityContext"]["runAsNonRoot"], pod["securityContext"]["runAsUser"]), (True, IMAGE_USER),
                 "etcd runs as non-root")
    expect_equal(container["securityContext"], {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                                "capabilities": {"drop": ["ALL"]}}, "etcd container securityContext")


def check_selectors_and_services():
    check_selectors(manifest_objects())


def token_secret_of(workload):
    """The Secret a workload's --metrics-token-file comes from, as its keys volume mounts it."""
    pod = workload["spec"]["template"]["spec"]
    container = container_of(workload)
    token = container["command"][container["command"].index("--metrics-token-file") + 1]
    expect_equal(token, f"{KEYS_DIR}/metrics.token", f"{workload['metadata']['name']} --metrics-token-file")
    (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == KEYS_DIR]
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    (secret,) = [name for name, keys in key_sources(volume).items() if "metrics.token" in keys]
    return secret


def check_agent_metrics(objects):
    """Each agent serves /metrics on the port its container names "metrics" (the same in both
    workloads), probed on /healthz, with the hub's token Secret; no port clashes in the pod."""
    hub_secret = token_secret_of(the(objects, "Deployment", "gantry-hub")) \
        if ("Deployment", SYSTEM_NS, "gantry-hub") in objects else None
    for name in AGENT_WORKLOADS:
        workload = next(w for w in workloads(objects) if w["metadata"]["name"] == name)
        container = container_of(workload)
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        expect_equal(len(set(ports.values())), len(ports), f"{name}: a port used twice")
        listen = container["command"][container["command"].index("--http-listen") + 1]
        expect_equal(int(listen.rsplit(":", 1)[1]), ports.get("metrics"), f"{name}: --http-listen vs the metrics port")
        expect_equal(ports["metrics"], AGENT_METRICS_PORT, f"{name}: metrics port")
        expect_equal(container["livenessProbe"]["httpGet"], {"path": "/healthz", "port": "metrics"}, f"{name} liveness")
        expect("readinessProbe" not in container,
               f"{name}: a readiness probe on /readyz would keep a standby or a hub-less agent unready")
        if hub_secret is not None:
            expect_equal(token_secret_of(workload), hub_secret, f"{name}: token Secret vs the hub's")


def check_agents_serve_metrics():
    check_agent_metrics(manifest_objects())
    check_agent_metrics(chart_objects({"hub": {"enabled": False}}))


# --- keys -----------------------------------------------------------------------------


def key_sources(volume):
    """{Secret name: [keys]} of a secret or projected volume, each item's path its key."""
    if "secret" in volume:
        sources = [{"secret": {"name": volume["secret"]["secretName"], "items": volume["secret"].get("items")}}]
        mode = volume["secret"].get("defaultMode")
    else:
        expect("projected" in volume, f"volume {volume['name']} is neither a Secret nor projected Secrets")
        sources, mode = volume["projected"]["sources"], volume["projected"].get("defaultMode")
    expect_equal(mode, 0o440, f"volume {volume['name']} defaultMode (readable by fsGroup only)")
    found = {}
    for source in sources:
        expect(set(source) == {"secret"}, f"volume {volume['name']} projects {sorted(source)}, not only Secrets")
        items = source["secret"]["items"]
        expect(items, f"volume {volume['name']}: Secret {source['secret']['name']} without items")
        for item in items:
            expect_equal(item["path"], item["key"], f"{source['secret']['name']} item path")
        found[source["secret"]["name"]] = [item["key"] for item in items]
    return found


def check_key_mounts(objects, secrets=KEY_SECRETS):
    for workload in workloads(objects):
        name = workload["metadata"]["name"]
        pod = workload["spec"]["template"]["spec"]
        container = container_of(workload)
        (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == KEYS_DIR]
        expect_equal(mount.get("readOnly"), True, f"{name}: {KEYS_DIR} readOnly")
        expect("subPath" not in mount, f"{name}: a subPath mount is never refreshed")
        (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
        sources = key_sources(volume)
        expect_equal(sources, secrets[name], f"{name}: Secrets and keys mounted at {KEYS_DIR}")
        expect_equal(pod["securityContext"].get("fsGroup"), IMAGE_USER, f"{name}: fsGroup (reads the keys)")
        files = {f"{KEYS_DIR}/{k}" for keys in sources.values() for k in keys}
        named = {a for a in container["command"] if a.startswith(KEYS_DIR + "/")}
        expect_equal(named, files, f"{name}: key files the command names vs the files mounted")


def check_keys():
    check_key_mounts(manifest_objects())


def check_no_plaintext():
    """--insecure only ever in a comment: never in a command, a unit or an env file's value."""
    lines = command_lines() + [(c["command"][0], c["command"])
                               for w in workloads(chart_objects(EVERY_OPTION)) for c in [container_of(w)]]
    lines += [(c["command"][0], c["command"]) for w in workloads(ha_objects()) for c in [container_of(w)]]
    for program, argv in lines:
        expect("--insecure" not in argv, f"{program} runs with --insecure")
    for env in sorted(SYSTEMD.glob("*.env")):
        for variable, value in env_file_variables(env).items():
            expect("--insecure" not in value, f"{env.name}: {variable} has --insecure")


# --- Prometheus and Grafana (their queries run against a real Prometheus: tests/e2e/metrics_test.py) ---


def check_prometheus_config():
    """promtool accepts deploy/prometheus/prometheus.yml (it needs the token file to exist)."""
    text = (PROMETHEUS / "prometheus.yml").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as scratch:
        token = pathlib.Path(scratch, "token")
        token.write_text("t\n", encoding="utf-8")
        expect("/etc/prometheus/gantry-metrics.token" in text, "prometheus.yml names no token file")
        config = pathlib.Path(scratch, "prometheus.yml")
        config.write_text(text.replace("/etc/prometheus/gantry-metrics.token", str(token)), encoding="utf-8")
        result = run(["promtool", "check", "config", str(config)])
        expect(result.returncode == 0, f"promtool check config: {result.stdout}{result.stderr}")


def check_alert_rules():
    """promtool accepts deploy/prometheus/alerts.yml, and its unit tests (each alert fires on trouble and
    not on its look-alikes) pass; every metric the rules read is documented."""
    result = run(["promtool", "check", "rules", str(PROMETHEUS / "alerts.yml")])
    expect(result.returncode == 0, f"promtool check rules: {result.stdout}{result.stderr}")
    tests = SOURCE / "tests" / "deploy" / "prometheus_alerts_test.yml"
    result = run(["promtool", "test", "rules", tests.name], cwd=tests.parent)
    expect(result.returncode == 0, f"promtool test rules: {result.stdout}{result.stderr}")
    documented = set(re.findall(r"`(gantry_[a-z_]+)`", (SOURCE / "docs" / "metrics.md").read_text(encoding="utf-8")))
    used = {re.sub(r"_(bucket|sum|count)$", "", n)
            for n in re.findall(r"gantry_[a-z_]+", (PROMETHEUS / "alerts.yml").read_text(encoding="utf-8"))}
    expect(used <= documented, f"alerts.yml reads {sorted(used - documented)}, not in docs/metrics.md")


def check_service_monitor():
    """The ServiceMonitor finds the hub's Service, its metrics port and the token Secret the hub mounts."""
    (monitor,) = documents(PROMETHEUS / "servicemonitor.yaml")
    service = the(manifest_objects(), "Service", "gantry-hub")
    selector = monitor["spec"]["selector"]["matchLabels"]
    expect(selector.items() <= service["metadata"]["labels"].items(), "ServiceMonitor selector misses the hub Service")
    expect_equal(monitor["metadata"]["namespace"], service["metadata"]["namespace"], "ServiceMonitor namespace")
    (endpoint,) = monitor["spec"]["endpoints"]
    expect(endpoint["port"] in {p["name"] for p in service["spec"]["ports"]}, "ServiceMonitor port not on the Service")
    credentials = endpoint["authorization"]["credentials"]
    expect_equal({credentials["name"]: [credentials["key"]]},
                 {k: v for k, v in KEY_SECRETS["gantry-hub"].items() if v == ["metrics.token"]},
                 "ServiceMonitor token Secret vs the one the hub mounts")


def selected_by(selector, labels):
    """Whether a label selector (matchLabels, matchExpressions In/NotIn/Exists) selects `labels`."""
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for rule in selector.get("matchExpressions", []):
        value, operator = labels.get(rule["key"]), rule["operator"]
        expect(operator in ("In", "NotIn", "Exists"), f"selector operator {operator} not checked here")
        if (operator == "In" and value not in rule["values"]) or (operator == "NotIn" and value in rule["values"]) \
                or (operator == "Exists" and value is None):
            return False
    return True


def check_pod_monitor():
    """The PodMonitor selects the agents' pods (not the hub's, its ServiceMonitor scrapes it), on the
    port their containers name, with the token Secret they mount; prometheus.yml's agent job too."""
    (monitor,) = documents(PROMETHEUS / "podmonitor.yaml")
    expect_equal(monitor["metadata"]["labels"].get("app.kubernetes.io/part-of"), "gantry", "PodMonitor part-of label")
    objects = manifest_objects()
    selected = {w["metadata"]["name"] for w in workloads(objects)
                if selected_by(monitor["spec"]["selector"], w["spec"]["template"]["metadata"]["labels"])}
    expect_equal(selected, set(AGENT_WORKLOADS), "pods the PodMonitor selects")
    expect_equal(monitor["metadata"]["namespace"], SYSTEM_NS, "PodMonitor namespace")
    (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
    credentials = endpoint["authorization"]["credentials"]
    for name in AGENT_WORKLOADS:
        workload = next(w for w in workloads(objects) if w["metadata"]["name"] == name)
        ports = {p["name"]: p["containerPort"] for p in container_of(workload)["ports"]}
        expect(endpoint["port"] in ports, f"PodMonitor port {endpoint['port']} not on {name}")
        expect_equal({credentials["name"]: [credentials["key"]]}, {token_secret_of(workload): ["metrics.token"]},
                     f"PodMonitor token Secret vs the one {name} mounts")
    import yaml

    config = yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text(encoding="utf-8"))
    (agents,) = [job for job in config["scrape_configs"] if job["job_name"] == "gantry-agent"]
    (target,) = [t for c in agents["static_configs"] for t in c["targets"]]
    expect_equal(int(target.rsplit(":", 1)[1]), AGENT_METRICS_PORT, "prometheus.yml agent target port")


def check_dashboard():
    """The dashboard is Grafana JSON whose every panel queries gantry_ metrics through the datasource variable."""
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    expect_equal([v["name"] for v in dashboard["templating"]["list"]], ["datasource"], "dashboard variables")
    documented = set(re.findall(r"`(gantry_[a-z_]+)`", (SOURCE / "docs" / "metrics.md").read_text(encoding="utf-8")))
    for panel in dashboard["panels"]:
        expect(panel["targets"], f"panel {panel['title']!r} queries nothing")
        for target in panel["targets"]:
            names = {re.sub(r"_(bucket|sum|count)$", "", n) for n in re.findall(r"gantry_[a-z_]+", target["expr"])}
            expect(names and names <= documented,
                   f"panel {panel['title']!r}: {sorted(names - documented)} not in docs/metrics.md")


# --- the chart -----------------------------------------------------------------------


def chart_default_expected():
    # Helm makes the release namespace (--create-namespace) and refuses to
    # install over an object it did not create, so the chart leaves it out.
    expected = manifest_objects()
    del expected[("Namespace", "", SYSTEM_NS)]
    return expected


def check_chart_metadata():
    (chart,) = documents(CHART / "Chart.yaml")
    expect_equal((chart["apiVersion"], chart["name"], chart["type"]), ("v2", "gantry", "application"), "Chart.yaml")
    expect(re.fullmatch(r"\d+\.\d+\.\d+", chart["version"]), f"Chart.yaml version {chart['version']!r} is not SemVer")


def check_chart_renders_defaults():
    expect_same_objects(chart_objects(), chart_default_expected(), "chart with default values")


EVERY_OPTION = {"ocm": {"namespace": OCM_NS}, "node": {"runtimeClassName": "nvidia"}}


def values_etcd():
    import yaml

    return yaml.safe_load(VALUES_ETCD.read_text(encoding="utf-8"))


# The etcd store with TLS and an etcd user, each from a Secret of its own.
ETCD_SECRETS = {"caSecret": "etcd-ca", "clientCertSecret": "etcd-client", "authSecret": "etcd-user"}


def etcd_every_option():
    return merged(merged(values_etcd(), EVERY_OPTION), {"hub": {"store": {"etcd": ETCD_SECRETS}}})


def check_chart_rendered_is_valid():
    for name, overrides in (("chart-default.yaml", {}), ("chart-every-option.yaml", EVERY_OPTION),
                            ("chart-etcd.yaml", values_etcd()), ("chart-etcd-every-option.yaml", etcd_every_option())):
        def lint_and_decode(path):
            check_yamllint(path, YAMLLINT_CONFIG)
            check_kubectl_decodes(path)
        with_scratch_file(name, render_chart(overrides), lint_and_decode)
        for document in load_documents(render_chart(overrides)):
            check_structure_of(document)


def check_chart_renders_etcd():
    """With values-etcd.yaml: deploy/kubernetes/ha/hub.yaml's objects instead of the single hub's."""
    expected = chart_default_expected()
    for single in (("Deployment", SYSTEM_NS, "gantry-hub"), ("PersistentVolumeClaim", SYSTEM_NS, "gantry-state")):
        del expected[single]
    for key, obj in by_key(documents(HA / "hub.yaml")).items():
        expect(key not in expected or expected[key] == obj, f"ha/hub.yaml {key} differs from hub.yaml's")
        expected[key] = obj
    rendered = chart_objects(values_etcd())
    expect_same_objects(rendered, expected, "chart with values-etcd.yaml vs deploy/kubernetes/ + ha/hub.yaml")
    expect_equal([k for k in chart_objects() if k[0] in ("Deployment", "StatefulSet") and k[2] == "gantry-hub"],
                 [("Deployment", SYSTEM_NS, "gantry-hub")], "default values: the single hub's Deployment")


def check_chart_etcd_options():
    # The sqlite store runs one hub whatever hub.replicas says.
    single = chart_objects({"hub": {"replicas": 5}})
    expect_equal(the(single, "Deployment", "gantry-hub")["spec"]["replicas"], 1, "sqlite hub replicas")
    expect(("StatefulSet", SYSTEM_NS, "gantry-hub") not in single, "sqlite store renders a StatefulSet")
    no_hub = chart_objects(merged(values_etcd(), {"hub": {"enabled": False}}))
    expect(not any(k[2].startswith("gantry-hub") for k in no_hub), "hub.enabled=false with etcd renders a hub")
    endpoints = "etcd-a.example.org:2379,etcd-b.example.org:2379"
    other = chart_objects(merged(values_etcd(), {"hub": {"replicas": 5, "store": {"etcd": {
        "endpoints": endpoints, "prefix": "/team/gantry"}}}}), namespace="gantry")
    check_ha_hub_workload(other, 5, [a.replace(ETCD_STORE, f"etcd://{endpoints}/team/gantry")
                                     .replace(f".{SYSTEM_NS}.svc", ".gantry.svc") for a in HA_HUB_COMMAND],
                          "gantry")
    # TLS and an etcd user: each flag names a file mounted from the Secret its value names.
    objects = chart_objects(etcd_every_option())
    hub = the(objects, "StatefulSet", "gantry-hub")
    container = container_of(hub)
    command = container["command"]
    store_flags = {"--store-cacert": ("etcd-ca", "ca.crt"), "--store-cert": ("etcd-client", "tls.crt"),
                   "--store-key": ("etcd-client", "tls.key"), "--store-password-file": ("etcd-user", "password")}
    at = command.index("--store") + 2
    expect_equal(command[:at], HA_HUB_COMMAND[:at], "command up to --store")
    expect_equal(command[at + 2 * len(store_flags) + 2:], HA_HUB_COMMAND[at:], "command after the etcd flags")
    volumes = {v["name"]: v for v in pod_spec(hub)["volumes"]}
    for flag, (secret, key) in store_flags.items():
        path = pathlib.PurePosixPath(command[command.index(flag) + 1])
        (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == str(path.parent)]
        expect_equal(mount.get("readOnly"), True, f"{flag}: mount readOnly")
        volume = volumes[mount["name"]]["secret"]
        expect_equal((volume["secretName"], path.name, volume["defaultMode"]), (secret, key, 0o440), flag)
        expect({"key": key, "path": key} in volume["items"], f"{flag}: {secret} has no item {key}")
    expect_equal(command[command.index("--store-user") + 1], "$(GANTRY_STORE_USER)", "--store-user")
    expect_equal(env_of(container)["GANTRY_STORE_USER"]["valueFrom"],
                 {"secretKeyRef": {"name": "etcd-user", "key": "username"}}, "the etcd user's name")
    expect_variables_defined(container)
    check_key_mounts(objects)


def check_chart_values_schema():
    """values.schema.json (helm refuses values against it): the store is sqlite or etcd, and the
    defaults and values-etcd.yaml are within it."""
    schema = json.loads((CHART / "values.schema.json").read_text(encoding="utf-8"))
    hub = schema["properties"]["hub"]["properties"]
    store = hub["store"]["properties"]
    expect_equal(store["type"]["enum"], ["sqlite", "etcd"], "store types")
    for values in (yaml_values(), merged(yaml_values(), values_etcd())):
        expect(values["hub"]["store"]["type"] in store["type"]["enum"], "store type")
        expect(isinstance(values["hub"]["replicas"], int) and values["hub"]["replicas"] >= hub["replicas"]["minimum"],
               "hub.replicas")
        for name, value in values["hub"]["store"]["etcd"].items():
            rule = store["etcd"]["properties"][name]
            expect(isinstance(value, str) and re.search(rule.get("pattern", ""), value), f"hub.store.etcd.{name}")
    expect(not re.search(store["etcd"]["properties"]["endpoints"]["pattern"], "http://etcd:2379"),
           "endpoints accept a URL (the hub takes HOST:PORT)")
    expect(not re.search(store["etcd"]["properties"]["prefix"]["pattern"], "gantry"), "prefix without /")


def check_structure_of(document):
    with_scratch_file("one.yaml", json.dumps(document), check_structure)


def deployment_with_ocm_patch():
    """The cluster agent's Deployment after `kubectl patch --local` with ocm/ocm-namespace.yaml."""
    deployment = the(manifest_objects(), "Deployment", "gantry-cluster-agent")
    patch = (OCM / "ocm-namespace.yaml").read_text(encoding="utf-8")  # as README.md passes it: YAML
    holder = {}

    def patched(path):
        result = run(["kubectl", "patch", "--local", "--type", "json", "-p", patch, "-f", str(path),
                      "-o", "json", "--kubeconfig", "/dev/null"])
        expect(result.returncode == 0, f"kubectl patch --local:\n{result.stderr}")
        holder["object"] = json.loads(result.stdout)

    with_scratch_file("deployment.yaml", json.dumps(deployment), patched)
    return holder["object"]


def check_chart_ocm_matches_overlay():
    expected = chart_default_expected()
    binding = ocm_binding()
    expected[key_of(binding)] = binding
    patched = deployment_with_ocm_patch()
    expect_equal(container_of(patched)["command"], CLUSTER_COMMAND + ["--ocm-namespace", OCM_NS],
                 "patched cluster agent command")
    original = expected[key_of(patched)]
    original = merged(original, {"spec": {"template": {"spec": {"containers": [
        merged(container_of(original), {"command": container_of(patched)["command"]})]}}}})
    expected[key_of(patched)] = original
    expect_same_objects(chart_objects({"ocm": {"namespace": OCM_NS}}), expected,
                        "chart with ocm.namespace vs deploy/kubernetes + ocm/")


def check_chart_notes():
    """NOTES.txt (printed by helm install) uses only the syntax the renderer knows and names the
    Secrets the pods mount, under the names the values give them."""
    template = (CHART / "templates" / "NOTES.txt").read_text(encoding="utf-8")
    values = {"hub": {"keySecret": "hub-k", "accessSecret": "acl", "metricsTokenSecret": "scrape"},
              "agent": {"keySecret": "east-k", "metricsTokenSecret": "east-scrape"}}
    context = {"Values": merged(yaml_values(), values), "Release": {"Namespace": "ns", "Name": "gantry"}}
    notes = render_template(template, context, "NOTES.txt")
    for needed in ("create secret generic hub-k --from-file=hub.key", "create secret generic acl --from-file=access.yaml",
                   "create secret generic scrape --from-file=metrics.token",
                   "create secret generic east-k", "--from-file=agent.key=", "--from-file=agent.pub=",
                   "create secret generic east-scrape --from-file=metrics.token",
                   "--from-file=hub.pub", "kill -HUP 1", "gantryctl keys generate", "docs/security.md"):
        expect(needed in notes, f"NOTES.txt does not say {needed!r}")
    expect("exec deploy/gantry-hub" in notes, "NOTES.txt: SIGHUP to the single hub")
    etcd = render_template(template, merged(context, {"Values": merged(values_etcd(), {"hub": {"store": {
        "etcd": ETCD_SECRETS}}})}), "NOTES.txt")
    for needed in ("get pods -l app.kubernetes.io/name=gantry-hub", "kill -HUP 1", "every replica",
                   "etcd://gantry-etcd.gantry-system.svc:2379/gantry", "Secret etcd-ca", "Secret etcd-client",
                   "Secret etcd-user", "create secret generic hub-k --from-file=hub.key"):
        expect(needed in etcd, f"NOTES.txt with values-etcd.yaml does not say {needed!r}")
    expect("deploy/gantry-hub" not in etcd, "NOTES.txt with values-etcd.yaml names the Deployment")
    member = render_template(template, merged(context, {"Values": {"hub": {"enabled": False}}}), "NOTES.txt")
    expect("hub-k" not in member and "east-k" in member and "east-scrape" in member,
           "NOTES.txt with hub.enabled=false")


def yaml_values():
    import yaml

    return yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))


def check_chart_options():
    no_hub = chart_objects({"hub": {"enabled": False}})
    expect_equal({k for k in chart_default_expected() if k not in no_hub},
                 {("Deployment", SYSTEM_NS, "gantry-hub"), ("Service", SYSTEM_NS, "gantry-hub"),
                  ("PersistentVolumeClaim", SYSTEM_NS, "gantry-state")}, "hub.enabled=false leaves out")
    hub_only = chart_objects({"agent": {"enabled": False}})
    expect_equal(set(hub_only), set(chart_default_expected()) - set(no_hub), "agent.enabled=false keeps")
    expect(("Namespace", "", JOBS_NS) not in chart_objects({"createJobsNamespace": False}),
           "createJobsNamespace=false still renders the Namespace")
    member = chart_objects({"agent": {"hubEndpoint": "tcp://hub.example.org:7800", "clusterName": "1"},
                            "image": "registry.example.org/gantry:0.1", "jobsNamespace": "training",
                            "node": {"runtimeClassName": "nvidia"}}, namespace="gantry")
    config = member[("ConfigMap", "gantry", "gantry-agent")]["data"]
    expect_equal(config, {"GANTRY_HUB": "tcp://hub.example.org:7800", "GANTRY_CLUSTER": "1"},
                 "ConfigMap data stays strings")
    node = member[("DaemonSet", "gantry", "gantry-agent-node")]
    expect_equal(container_of(node)["command"][4], "tcp://gantry-cluster-agent.gantry.svc:7810",
                 "node agents follow the release namespace")
    expect_equal(node["spec"]["template"]["spec"]["runtimeClassName"], "nvidia", "runtimeClassName")
    command = container_of(member[("Deployment", "gantry", "gantry-cluster-agent")])["command"]
    expect_equal((command[command.index("--lease-namespace") + 1], command[command.index("--namespace") + 1]),
                 ("gantry", "training"), "Lease and jobs namespaces")
    expect_equal(grants_of(("gantry-agent", "gantry"), member),
                 {(s.replace(SYSTEM_NS, "gantry").replace(JOBS_NS, "training"), g, r, v)
                  for s, g, r, v in agent_grants(False)}, "grants in another release namespace")
    for workload in workloads(member):
        expect_equal(container_of(workload)["image"], "registry.example.org/gantry:0.1", "image")
    renamed = chart_objects({"hub": {"keySecret": "hub-k", "accessSecret": "acl", "metricsTokenSecret": "scrape"},
                             "agent": {"keySecret": "east-k", "metricsTokenSecret": "east-scrape"}})
    check_key_mounts(renamed, {"gantry-hub": {"hub-k": ["hub.key"], "acl": ["access.yaml"], "scrape": ["metrics.token"]},
                               "gantry-cluster-agent": {"east-k": ["agent.key", "hub.pub"],
                                                        "east-scrape": ["metrics.token"]},
                               "gantry-agent-node": {"east-k": ["agent.key", "agent.pub"],
                                                     "east-scrape": ["metrics.token"]}})
    expect(all(k[1] in ("", "gantry", "training") for k in member), "an object outside the release namespaces")


# --- the programs' flags ------------------------------------------------------------


def flags_in(source):
    return set(re.findall(r'"(--[a-z][a-z0-9-]*)"', source.read_text(encoding="utf-8")))


def command_lines():
    """(program, argv) of every manifest and unit, and of the chart's etcd store with every option."""
    objects = list(manifest_objects().values()) + list(ha_objects().values()) + \
        list(chart_objects(etcd_every_option()).values())
    lines = [(c["command"][0], c["command"]) for w in workloads({i: o for i, o in enumerate(objects)})
             for c in [container_of(w)] if c["command"][0].startswith("gantry")]
    for unit in sorted(SYSTEMD.glob("*.service")):
        argv = unit_values(unit, "Service", "ExecStart")[0].split()
        lines.append((pathlib.Path(argv[0]).name, argv))
    karmada_hub = [d for d in documents(DEPLOY / "karmada" / "hub.yaml") if d["kind"] == "Deployment"]
    lines += [(c["command"][0], c["command"]) for w in karmada_hub for c in [container_of(w)]]
    return lines


def check_flags_exist():
    # The option parsers, and the flags they share (the HTTP endpoint's).
    shared = flags_in(SOURCE / "config" / "http_endpoint_flags.hpp")
    known = {"gantry-agent": flags_in(SOURCE / "agents" / "agent_options.cpp") | shared,
             "gantry-hub": flags_in(SOURCE / "actors" / "hub_options.cpp") | shared}
    missing = {}
    for program, argv in command_lines():
        missing.setdefault(program, set()).update(a for a in argv if a.startswith("--") and a not in known[program])
    expect(not any(missing.values()),
           "; ".join(f"{program} has no {sorted(flags)}" for program, flags in sorted(missing.items()) if flags))


# --- systemd --------------------------------------------------------------------------

UNITS = {
    "gantry-hub.service": ("hub.env", "/usr/local/bin/gantry-hub --agents ${GANTRY_AGENTS} --admin ${GANTRY_ADMIN} "
                                      f"--state /var/lib/gantry --key {KEYS_DIR}/hub.key "
                                      f"--access {KEYS_DIR}/access.yaml $GANTRY_HUB_ARGS"),
    "gantry-agent-cluster.service": ("agent-cluster.env", "/usr/local/bin/gantry-agent --role cluster "
                                     "--hub ${GANTRY_HUB} --cluster ${GANTRY_CLUSTER} --node-listen "
                                     "${GANTRY_NODE_LISTEN} --executor process --work-dir /var/lib/gantry-agent "
                                     f"--run-as ${{GANTRY_RUN_AS}} --key {KEYS_DIR}/agent.key "
                                     f"--hub-key {KEYS_DIR}/hub.pub $GANTRY_AGENT_ARGS"),
    "gantry-agent-node.service": ("agent-node.env", "/usr/local/bin/gantry-agent --role node "
                                  "--cluster-agent ${GANTRY_CLUSTER_AGENT} --key ${GANTRY_NODE_KEY} "
                                  "--cluster-key ${GANTRY_CLUSTER_KEY} $GANTRY_AGENT_ARGS"),
}
# The cluster agent runs as root so that its replicas run as another user (--run-as), one that
# cannot read its key or signal it; it keeps only the capabilities that takes.
RUN_AS_CAPABILITIES = "CAP_SETUID CAP_SETGID CAP_CHOWN CAP_FOWNER CAP_DAC_OVERRIDE CAP_KILL"
UNIT_USER = {"gantry-agent-cluster.service": ([], [])}
UNIT_HARDENING = {"gantry-agent-cluster.service": {"CapabilityBoundingSet": RUN_AS_CAPABILITIES}}
HARDENING = {"NoNewPrivileges": "yes", "ProtectSystem": "strict", "PrivateTmp": "yes", "CapabilityBoundingSet": "",
             "AmbientCapabilities": "", "ProtectKernelModules": "yes", "ProtectKernelTunables": "yes",
             "ProtectControlGroups": "yes", "RestrictSUIDSGID": "yes"}


def unit_entries(path):
    """[(section, key, value)]: systemd allows a key more than once, so no configparser."""
    entries, section = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        expect("=" in line and section, f"{path.name}:{number}: not KEY=VALUE in a section")
        k, v = line.split("=", 1)
        entries.append((section, k.strip(), v.strip()))
    return entries


def check_reload():
    expect_equal(unit_values(SYSTEMD / "gantry-hub.service", "Service", "ExecReload"), ["/bin/kill -HUP $MAINPID"],
                 "gantry-hub ExecReload (systemctl reload: access.yaml re-read on SIGHUP)")
    run_as = env_file_variables(SYSTEMD / "agent-cluster.env")["GANTRY_RUN_AS"]
    expect(run_as not in ("root", "0", "gantry"), f"GANTRY_RUN_AS={run_as}: replicas must not run as root or "
                                                  "as the user that reads the keys")


def unit_values(path, section, key):
    return [v for s, k, v in unit_entries(path) if (s, k) == (section, key)]


def env_file_variables(path):
    pairs = [line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    return {k: v for k, v in pairs}


def check_unit(name):
    path = SYSTEMD / name
    env_example, exec_start = UNITS[name]
    single = lambda key: unit_values(path, "Service", key)  # noqa: E731
    expect_equal(single("ExecStart"), [exec_start], "ExecStart")
    expect_equal(single("EnvironmentFile"), [f"/etc/gantry/{env_example}"], "EnvironmentFile")
    user, group = UNIT_USER.get(name, (["gantry"], ["gantry"]))
    expect_equal((single("Restart"), single("User"), single("Group")), (["on-failure"], user, group),
                 "Restart, User, Group")
    for key, value in dict(HARDENING, **UNIT_HARDENING.get(name, {})).items():
        expect_equal(single(key), [value], key)
    key_files = {a for a in exec_start.split() if a.startswith(KEYS_DIR + "/")}
    key_files |= {v for k, v in env_file_variables(SYSTEMD / env_example).items() if k.endswith("_KEY")}
    expect(all(f.startswith(KEYS_DIR + "/") for f in key_files), f"{name}: a key outside {KEYS_DIR}")
    expect_equal(unit_values(path, "Install", "WantedBy"), ["multi-user.target"], "WantedBy")
    defaults = {a.split("=", 1)[0] for line in single("Environment") for a in line.split()}
    example = env_file_variables(SYSTEMD / env_example)
    used = set(re.findall(r"\$\{?(\w+)\}?", exec_start))
    expect(used <= defaults | set(example), f"{name}: undefined {sorted(used - defaults - set(example))}")
    expect(set(example) <= used, f"{env_example} sets unused {sorted(set(example) - used)}")
    for variable in used - defaults:
        expect(example[variable], f"{env_example}: {variable} is empty but has no default")


def systemd_verify_errors(units_dir):
    result = run(["systemd-analyze", "verify", *sorted(str(p) for p in units_dir.glob("*.service"))])
    # Unknown keys are only warnings on stderr: any line there is a failure.
    return "" if result.returncode == 0 and not result.stderr.strip() else result.stderr + result.stdout


def verified_copies(scratch):
    """The units with their programs replaced by stubs: verify checks ExecStart is executable."""
    stubs = pathlib.Path(scratch, "bin")
    stubs.mkdir()
    for program in ("gantry-hub", "gantry-agent"):
        (stubs / program).write_text("#!/bin/sh\n")
        (stubs / program).chmod(0o755)
    for unit in SYSTEMD.glob("*.service"):
        text = unit.read_text(encoding="utf-8").replace("/usr/local/bin/", f"{stubs}/")
        pathlib.Path(scratch, unit.name).write_text(text, encoding="utf-8")
    return pathlib.Path(scratch)


def check_systemd_analyze():
    with tempfile.TemporaryDirectory() as scratch:
        errors = systemd_verify_errors(verified_copies(scratch))
        expect(not errors, f"systemd-analyze verify:\n{errors}")
    with tempfile.TemporaryDirectory() as scratch:
        bad = verified_copies(scratch)
        unit = bad / "gantry-hub.service"
        unit.write_text(unit.read_text(encoding="utf-8").replace("PrivateTmp=yes", "PrivateTmp=yes\nProtectEverything=yes"))
        expect(systemd_verify_errors(bad), "systemd-analyze verify accepted an unknown key")


# --- the container image ----------------------------------------------------------------


def containerfile_stages():
    """[(FROM line, [packages apt-get installs])] with continuation lines joined."""
    text = re.sub(r"\\\n", " ", CONTAINERFILE.read_text(encoding="utf-8"))
    stages = []
    for line in text.splitlines():
        if line.startswith("FROM "):
            stages.append((line, []))
        elif line.startswith("RUN ") and "apt-get install" in line:
            install = line.split("apt-get install", 1)[1].split("&&", 1)[0]
            stages[-1][1].extend(w for w in install.split() if not w.startswith("-"))
    return stages


def check_containerfile_packages_exist():
    packages = [p for _, stage in containerfile_stages() for p in stage]
    expect(packages, "no apt-get install in deploy/Containerfile")
    # One apt-cache call (each costs seconds); a virtual or unknown name shows no "Package:" stanza.
    result = run(["apt-cache", "show", "--no-all-versions", *packages])
    shown = set(re.findall(r"^Package: (\S+)$", result.stdout, re.M))
    expect(set(packages) <= shown, f"Debian has no package {sorted(set(packages) - shown)} "
                                   f"(apt-cache show: {result.stderr.strip()})")


def bootstrap_packages():
    text = (SOURCE / "scripts" / "bootstrap.sh").read_text(encoding="utf-8")
    block = re.search(r"packages=\((.*?)\n\)", text, re.S).group(1)
    return {w for line in block.splitlines() for w in line.split("#", 1)[0].split()}


def check_containerfile_stages():
    stages = containerfile_stages()
    expect_equal(len(stages), 2, "stages")
    (build_from, build), (run_from, runtime) = stages
    expect("debian:bookworm AS build" in build_from, f"build stage: {build_from}")
    expect(run_from.endswith("debian:bookworm-slim"), f"runtime stage: {run_from}")
    expect(set(build) <= bootstrap_packages(), f"not in scripts/bootstrap.sh: {sorted(set(build) - bootstrap_packages())}")
    text = CONTAINERFILE.read_text(encoding="utf-8")
    for program in ("gantry-hub", "gantry-agent", "gantryctl"):
        expect(f"/build/bin/{program}" in text.split("COPY --from=build", 1)[-1], f"the image lacks {program}")
    expect(f"USER {IMAGE_USER}:{IMAGE_USER}" in text, f"the image does not run as {IMAGE_USER}")


def library_paths(sonames):
    """soname -> the paths dpkg may know it by (ldconfig's, and with / without /usr: merged /usr)."""
    cache = run(["ldconfig", "-p"]).stdout.splitlines()
    paths = {}
    for soname in sonames:
        found = [line.split(" => ")[1] for line in cache if line.strip().startswith(soname + " ") and " => " in line]
        expect(found, f"ldconfig does not know {soname}")
        real = os.path.realpath(found[0])
        bare = real[len("/usr"):] if real.startswith("/usr/") else real
        paths[soname] = {found[0], bare, "/usr" + bare}
    return paths


def packages_of_libraries(sonames):
    paths = library_paths(sonames)
    owners = {}
    result = run(["dpkg", "-S", *sorted(set().union(*paths.values()))])
    for line in result.stdout.splitlines():  # "libzmq5:amd64: /usr/lib/x86_64-linux-gnu/libzmq.so.5"
        package, path = line.rsplit(": ", 1)
        owners[path] = package.split(":", 1)[0]
    packages = {}
    for soname, candidates in paths.items():
        owned = [owners[p] for p in candidates if p in owners]
        expect(owned, f"no Debian package owns {soname} ({sorted(candidates)})")
        packages[soname] = owned[0]
    return packages


# Sanitizer runtimes: linked only by the test suite's ASan+UBSan build, never
# by the image's release build.
SANITIZER_RUNTIMES = re.compile(r"lib(asan|ubsan|lsan|tsan)\.so")


def needed_libraries(binary):
    expect(binary.is_file(), f"{binary} not built (set GANTRY_BINARY_DIR to the build folder)")
    dynamic = run(["readelf", "-d", str(binary)]).stdout
    return [soname for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic)
            if not SANITIZER_RUNTIMES.match(soname)]


def check_runtime_libraries():
    runtime = set(containerfile_stages()[-1][1])
    needed = {program: needed_libraries(BINARIES / program) for program in ("gantry-hub", "gantry-agent", "gantryctl")}
    packages = packages_of_libraries({s for sonames in needed.values() for s in sonames})
    for program, sonames in needed.items():
        for soname in sonames:
            expect(packages[soname] in runtime | BASE_IMAGE_PACKAGES,
                   f"{program} links {soname} from {packages[soname]}, which the runtime stage does not install")


def check_access_example():
    """deploy/access.example.yaml has the shape of the hub's access.yaml (docs/security.md)."""
    (access,) = documents(DEPLOY / "access.example.yaml")
    expect_equal(set(access), {"agents", "admins"}, "access.example.yaml sections")
    names = [e["name"] for section in access.values() for e in section]
    expect_equal(len(names), len(set(names)), "access.example.yaml: unique names")
    for entry in access["agents"] + access["admins"]:
        expect(len({"public_key", "public_key_file"} & set(entry)) == 1, f"{entry['name']}: one public key source")
        expect(re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", entry["name"]), f"{entry['name']}: not a DNS-1123 name")
    for agent in access["agents"]:
        expect_equal(set(agent) - {"public_key", "public_key_file"}, {"name", "clusters"}, f"agent {agent['name']}")
        expect(agent["clusters"] and all(isinstance(c, str) for c in agent["clusters"]),
               f"agent {agent['name']}: clusters")
    roles = set()
    for admin in access["admins"]:
        expect(admin["role"] in ("viewer", "operator", "admin"), f"admin {admin['name']}: role {admin['role']!r}")
        expect("queues" not in admin or admin["role"] == "operator", f"admin {admin['name']}: queues for a non-operator")
        roles.add(admin["role"])
    expect_equal(roles, {"viewer", "operator", "admin"}, "roles the example shows")


def check_readme():
    text = (DEPLOY / "README.md").read_text(encoding="utf-8")
    expect(not re.search(r"^(<<<<<<<|=======$|>>>>>>>)", text, re.M), "deploy/README.md has merge-conflict markers")
    for needed in ("kubectl apply -k deploy/kubernetes", "helm install", "systemctl enable",
                   "-f deploy/Containerfile", "deploy/kubernetes/ocm/", "gantryctl keys generate",
                   "create secret generic gantry-hub-key", "create secret generic gantry-access",
                   "create secret generic gantry-agent-keys", "create secret generic gantry-metrics-token",
                   "kill -HUP 1", "systemctl reload gantry-hub",
                   "docs/security.md", "kubectl apply -k deploy/kubernetes/ha", "values-etcd.yaml",
                   "--store-cacert", "--store-password-file", "/readyz"):
        expect(needed in text, f"deploy/README.md does not mention {needed!r}")


# --- main ---------------------------------------------------------------------------------


def yaml_files():
    files = [p for p in sorted(KUBERNETES.rglob("*.yaml"))]
    return files + [CHART / "Chart.yaml", CHART / "values.yaml", VALUES_ETCD, DEPLOY / "access.example.yaml",
                    PROMETHEUS / "prometheus.yml", PROMETHEUS / "servicemonitor.yaml", PROMETHEUS / "podmonitor.yaml",
                    PROMETHEUS / "alerts.yml"]


def main():
    missing = require_tools()
    if missing:
        for line in missing:
            print(f"FAIL {line}")
        print(f"0 passed, {len(missing)} failed")
        return 1

    checks = [("tools catch bad input", check_tools_catch_bad_input)]
    for path in yaml_files():
        relative = path.relative_to(DEPLOY)
        checks.append((f"yamllint {relative}", lambda p=path: check_yamllint(p, YAMLLINT_CONFIG)))
    for name in MANIFESTS + ["ocm/agent-ocm-rolebinding.yaml"] + [f"ha/{n}" for n in HA_MANIFESTS]:
        checks.append((f"structure {name}", lambda p=KUBERNETES / name: check_structure(p)))
        checks.append((f"kubectl decodes {name}", lambda p=KUBERNETES / name: check_kubectl_decodes(p)))
    checks += [
        ("kubectl kustomize deploy/kubernetes", check_kustomize_builds),
        ("selectors and Services", check_selectors_and_services),
        ("RBAC is least privilege", check_rbac_least_privilege),
        ("ServiceAccount tokens", check_token_mounts),
        ("node agent DaemonSet", check_node_daemonset),
        ("cluster agent Deployment", check_cluster_deployment),
        ("hub Deployment", check_hub),
        ("kubectl kustomize deploy/kubernetes/ha", check_ha_kustomize_builds),
        ("HA hub StatefulSet: probes, per-replica state, shared keys, Services, budget", check_ha_hub),
        ("HA hub --store is the etcd Service", check_ha_store_is_the_etcd_service),
        ("etcd StatefulSet: members, initial cluster, probes", check_etcd_statefulset),
        ("agents serve /metrics and /healthz", check_agents_serve_metrics),
        ("keys: Secrets mounted read-only", check_keys),
        ("no --insecure", check_no_plaintext),
        ("Chart.yaml", check_chart_metadata),
        ("chart renders deploy/kubernetes with default values", check_chart_renders_defaults),
        ("chart output lints and decodes", check_chart_rendered_is_valid),
        ("chart ocm.namespace = deploy/kubernetes/ocm", check_chart_ocm_matches_overlay),
        ("chart values", check_chart_options),
        ("chart with values-etcd.yaml renders deploy/kubernetes/ha/hub.yaml", check_chart_renders_etcd),
        ("chart etcd values: replicas, endpoints, TLS and user Secrets", check_chart_etcd_options),
        ("chart values.schema.json", check_chart_values_schema),
        ("chart NOTES.txt: how to make the key Secrets", check_chart_notes),
        ("flags exist in the option parsers", check_flags_exist),
        ("promtool checks deploy/prometheus/prometheus.yml", check_prometheus_config),
        ("kubectl decodes prometheus/servicemonitor.yaml",
         lambda: check_kubectl_decodes(PROMETHEUS / "servicemonitor.yaml")),
        ("ServiceMonitor finds the hub", check_service_monitor),
        ("kubectl decodes prometheus/podmonitor.yaml",
         lambda: check_kubectl_decodes(PROMETHEUS / "podmonitor.yaml")),
        ("PodMonitor finds the agents", check_pod_monitor),
        ("promtool checks and tests deploy/prometheus/alerts.yml", check_alert_rules),
        ("Grafana dashboard", check_dashboard),
    ]
    for unit in UNITS:
        checks.append((f"systemd {unit}", lambda u=unit: check_unit(u)))
    checks.append(("systemd: reload, --run-as", check_reload))
    if shutil.which("systemd-analyze"):
        checks.append(("systemd-analyze verify", check_systemd_analyze))
    else:
        print("note systemd-analyze not found (apt-get install -y systemd): units checked structurally only")
    checks += [
        ("Containerfile stages", check_containerfile_stages),
        ("Containerfile packages exist", check_containerfile_packages_exist),
        ("runtime image holds the programs' libraries", check_runtime_libraries),
        ("deploy/access.example.yaml", check_access_example),
        ("deploy/README.md", check_readme),
    ]

    return run_checks(checks)


if __name__ == "__main__":
    sys.exit(main())
