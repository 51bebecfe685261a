#!/usr/bin/env python3
"""Checks the manifests in deploy/karmada without an API server.

- yamllint (deploy/.yamllint, --strict) on every YAML file;
- kubectl decodes every object: `kubectl annotate --local --dry-run=client`.
  `kubectl apply/create --dry-run=client` are not usable here: kubectl (1.20
  and later) maps each kind to a resource through the server's discovery API
  even for a client dry run, so with no server they fail with "unable to
  recognize". The --local path decodes the same objects (kind, apiVersion,
  metadata types) without discovery, CRD kinds (PropagationPolicy) included;
  it checks no schema, so the fields that matter are checked here in Python;
- `kubectl kustomize deploy/karmada` builds the kustomization offline;
- structure (apiVersion / kind known, metadata.name, namespace where needed)
  and the contract with the hub (RBAC verbs, flags, ports, webhook path).

Prints one line per check and "N passed, M failed"; exits non-zero on any
failure, and fails (never skips) when yamllint, kubectl or PyYAML is missing.
"""

import os
import pathlib
import shutil
import sys
import tempfile

SOURCE = pathlib.Path(os.environ.get("GANTRY_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DEPLOY = SOURCE / "deploy"
sys.path.insert(0, str(SOURCE / "tests" / "deploy"))
from manifest_checks import (check_yamllint, decoded_by_kubectl, expect,  # noqa: E402
                             expect_equal, run, run_checks)
KARMADA = DEPLOY / "karmada"
YAMLLINT_CONFIG = DEPLOY / ".yamllint"

# The (apiVersion, kind) pairs these manifests may use, and whether the kind is
# namespaced. A typo in either is caught here, since no server can say so.
KNOWN_KINDS = {
    ("v1", "Namespace"): False,
    ("v1", "ServiceAccount"): True,
    ("v1", "Secret"): True,
    ("v1", "Service"): True,
    ("v1", "PersistentVolumeClaim"): True,
    ("apps/v1", "Deployment"): True,
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): False,
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): False,
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"): False,
    ("policy.karmada.io/v1alpha1", "PropagationPolicy"): True,
    ("kustomize.config.k8s.io/v1beta1", "Kustomization"): False,
}


def require_tools():
    missing = []
    for tool, package in (("yamllint", "yamllint"), ("kubectl", "kubernetes-client")):
        if shutil.which(tool) is None:
            missing.append(f"{tool} not found: apt-get install -y {package}")
    try:
        import yaml  # noqa: F401
    except ImportError:
        missing.append("PyYAML not found: apt-get install -y python3-yaml")
    return missing


def yaml_files():
    return sorted(p for p in KARMADA.iterdir() if p.suffix in (".yaml", ".yml"))


def documents(path):
    import yaml

    with open(path, encoding="utf-8") as stream:
        return [d for d in yaml.safe_load_all(stream) if d is not None]


def manifest_objects():
    """Every object of every manifest (not the kustomization), by (kind, name)."""
    objects = {}
    for path in yaml_files():
        if path.name == "kustomization.yaml":
            continue
        for document in documents(path):
            objects[(document["kind"], document["metadata"]["name"])] = document
    return objects


def the(kind, name):
    objects = manifest_objects()
    expect((kind, name) in objects, f"no {kind} {name} in deploy/karmada")
    return objects[(kind, name)]


# --- tools -----------------------------------------------------------------


def check_kubectl_decodes(path):
    objects = decoded_by_kubectl(path)
    expect_equal(len(objects), len(documents(path)), "objects kubectl decoded")
    for obj in objects:
        expect(obj.get("metadata", {}).get("annotations", {}).get("gantry.io/checked") == "true",
               f"{obj.get('kind')} came back from kubectl unannotated")


def check_kustomize_builds():
    result = run(["kubectl", "kustomize", str(KARMADA)])
    expect(result.returncode == 0, f"kubectl kustomize:\n{result.stderr}")
    import yaml

    built = {(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(result.stdout) if d}
    expect_equal(built, {
        ("Namespace", "gantry-system"),
        ("ServiceAccount", "gantry-hub"),
        ("Secret", "gantry-hub-token"),
        ("ClusterRole", "gantry-hub"),
        ("ClusterRoleBinding", "gantry-hub"),
        ("MutatingWebhookConfiguration", "gantry-resourcebinding"),
        ("Service", "gantry-hub"),
    }, "objects the kustomization applies to the Karmada API server")


# The tools must be able to say no, or their passes mean nothing.
def check_tools_catch_bad_manifests():
    with tempfile.TemporaryDirectory() as scratch:
        # `namespace: y` is a YAML 1.1 boolean: kubectl must refuse it.
        bad_type = pathlib.Path(scratch, "bad-type.yaml")
        bad_type.write_text("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: x\n  namespace: y\n")
        result = run(["kubectl", "annotate", "--local", "--dry-run=client", "-o", "json",
                      "--kubeconfig", "/dev/null", "-f", str(bad_type), "a=b"])
        expect(result.returncode != 0, "kubectl accepted a boolean metadata.namespace")
        too_long = pathlib.Path(scratch, "too-long.yaml")
        too_long.write_text("key: " + "word " * 26 + "\n")
        result = run(["yamllint", "--strict", "-c", str(YAMLLINT_CONFIG), str(too_long)])
        expect(result.returncode != 0, "yamllint accepted a 135-character line")


# --- structure -------------------------------------------------------------


def check_structure(path):
    for document in documents(path):
        key = (document.get("apiVersion"), document.get("kind"))
        expect(key in KNOWN_KINDS, f"unknown apiVersion/kind {key}")
        if document["kind"] == "Kustomization":
            for resource in document.get("resources", []):
                expect((KARMADA / resource).is_file(), f"kustomization lists missing {resource}")
            continue
        metadata = document.get("metadata") or {}
        expect(metadata.get("name"), f"{document['kind']} without metadata.name")
        if KNOWN_KINDS[key]:
            expect(metadata.get("namespace"), f"{document['kind']} {metadata['name']} without a namespace")
        else:
            expect("namespace" not in metadata, f"cluster-scoped {document['kind']} has a namespace")


# --- the contract with the hub ----------------------------------------------


def check_rbac_least_privilege():
    role = the("ClusterRole", "gantry-hub")
    granted = {(g, r, v) for rule in role["rules"] for g in rule["apiGroups"]
               for r in rule["resources"] for v in rule["verbs"]}
    # What the hub uses (tests/e2e/karmada_rbac_test.py derives it from the hub's own requests).
    wanted = {("work.karmada.io", "resourcebindings", v) for v in ("get", "list", "watch", "patch")}
    wanted |= {("cluster.karmada.io", "clusters", v) for v in ("list", "watch")}
    wanted |= {("policy.karmada.io", "overridepolicies", v) for v in ("create", "delete")}
    wanted |= {("batch.volcano.sh", "jobs", "get"), ("apps", "deployments", "get"),
               ("apps", "statefulsets", "get"), ("batch", "jobs", "get")}
    expect_equal(granted, wanted, "ClusterRole gantry-hub grants")
    binding = the("ClusterRoleBinding", "gantry-hub")
    expect_equal(binding["roleRef"], {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                      "name": "gantry-hub"}, "roleRef")
    expect_equal(binding["subjects"], [{"kind": "ServiceAccount", "name": "gantry-hub",
                                        "namespace": "gantry-system"}], "subjects")
    token = the("Secret", "gantry-hub-token")
    expect_equal(token["type"], "kubernetes.io/service-account-token", "token Secret type")
    expect_equal(token["metadata"]["annotations"]["kubernetes.io/service-account.name"], "gantry-hub",
                 "token Secret's ServiceAccount")


def hub_deployment():
    return the("Deployment", "gantry-hub")


def check_hub_deployment():
    deployment = hub_deployment()
    spec = deployment["spec"]
    expect_equal(spec["replicas"], 1, "replicas")
    expect_equal(spec["strategy"], {"type": "Recreate"}, "strategy")
    pod = spec["template"]["spec"]
    expect_equal(spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items(),
                 True, "selector matches the pod's labels")
    (container,) = pod["containers"]
    expect_equal(container["image"], "gantry:latest", "image")
    expect_equal(container["command"], [
        "gantry-hub", "--karmada", "in-cluster", "--webhook-listen", "0.0.0.0:8443",
        "--webhook-cert", "/etc/gantry/tls/tls.crt", "--webhook-key", "/etc/gantry/tls/tls.key",
        "--state", "/var/lib/gantry", "--key", "/etc/gantry/keys/hub.key",
        "--access", "/etc/gantry/keys/access.yaml", "--http-listen", "0.0.0.0:7802",
        "--metrics-token-file", "/etc/gantry/keys/metrics.token"], "command")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    expect_equal(ports, {"agents": 7800, "admin": 7801, "webhook": 8443, "metrics": 7802}, "container ports")
    expect_equal(container["livenessProbe"]["httpGet"], {"path": "/healthz", "port": "metrics"}, "liveness probe")
    probe = container["readinessProbe"]["httpGet"]
    expect_equal((probe["path"], probe["port"], probe["scheme"]), ("/healthz", "webhook", "HTTPS"),
                 "readiness probe")
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    expect_equal(volumes[mounts["/etc/gantry/tls"]]["secret"]["secretName"], "gantry-webhook-tls",
                 "TLS volume")
    expect_equal(volumes[mounts["/var/lib/gantry"]]["persistentVolumeClaim"]["claimName"], "gantry-state",
                 "state volume")
    # CurveZMQ keys: two Secrets, projected read-only (refreshed on change, unlike subPath), 0440 + fsGroup.
    keys_mount = next(m for m in container["volumeMounts"] if m["mountPath"] == "/etc/gantry/keys")
    expect_equal((keys_mount.get("readOnly"), "subPath" in keys_mount), (True, False), "keys mount read-only, whole")
    keys = volumes[keys_mount["name"]]["projected"]
    expect_equal(keys["defaultMode"], 0o440, "keys defaultMode")
    expect_equal([(s["secret"]["name"], s["secret"]["items"]) for s in keys["sources"]],
                 [("gantry-hub-key", [{"key": "hub.key", "path": "hub.key"}]),
                  ("gantry-access", [{"key": "access.yaml", "path": "access.yaml"}]),
                  ("gantry-metrics-token", [{"key": "metrics.token", "path": "metrics.token"}])], "keys Secrets")
    expect_equal(pod["securityContext"]["fsGroup"], 65532, "fsGroup")
    expect("--insecure" not in container["command"], "the hub runs with --insecure")
    credentials = volumes[mounts["/var/run/secrets/kubernetes.io/serviceaccount"]]
    expect_equal(credentials["secret"]["secretName"], "gantry-karmada-token", "Karmada credentials volume")
    # The host cluster's own token would collide with that mount.
    expect_equal(pod["automountServiceAccountToken"], False, "automountServiceAccountToken")
    the("PersistentVolumeClaim", "gantry-state")


def check_hub_service():
    objects = manifest_objects()
    # Two Services named gantry-hub: the real one (hub.yaml, host cluster) and
    # the ExternalName one (webhook.yaml, Karmada API server).
    services = [documents(KARMADA / "hub.yaml"), documents(KARMADA / "webhook.yaml")]
    real = next(d for d in services[0] if d["kind"] == "Service")
    external = next(d for d in services[1] if d["kind"] == "Service")
    expect_equal(real["metadata"]["name"], "gantry-hub", "hub Service name")
    ports = {p["port"]: p["targetPort"] for p in real["spec"]["ports"]}
    expect_equal(ports, {7800: "agents", 7801: "admin", 443: "webhook", 7802: "metrics"}, "hub Service ports")
    expect_equal(real["spec"]["selector"], hub_deployment()["spec"]["selector"]["matchLabels"],
                 "hub Service selector")
    expect_equal(external["spec"], {"type": "ExternalName",
                                    "externalName": "gantry-hub.gantry-system.svc.cluster.local"},
                 "ExternalName Service on the Karmada API server")
    expect(("Namespace", "gantry-system") in objects, "no Namespace gantry-system")


def check_webhook_configuration():
    (webhook,) = the("MutatingWebhookConfiguration", "gantry-resourcebinding")["webhooks"]
    (rule,) = webhook["rules"]
    expect_equal((rule["apiGroups"], rule["apiVersions"], rule["operations"], rule["resources"]),
                 (["work.karmada.io"], ["v1alpha2"], ["CREATE"], ["resourcebindings"]), "rule")
    expect_equal(webhook["clientConfig"]["service"], {"name": "gantry-hub", "namespace": "gantry-system",
                                                       "path": "/mutate-resourcebindings", "port": 443},
                 "clientConfig.service")
    expect("caBundle" in webhook["clientConfig"], "no caBundle placeholder")
    expect_equal(webhook["sideEffects"], "None", "sideEffects")
    expect_equal(webhook["admissionReviewVersions"], ["v1"], "admissionReviewVersions")
    expect_equal(webhook["failurePolicy"], "Fail", "failurePolicy")
    expect_equal(webhook["timeoutSeconds"], 10, "timeoutSeconds")
    # The path the API server calls is one the hub serves.
    server = (SOURCE / "karmada" / "webhook_server.cpp").read_text(encoding="utf-8")
    expect('"/mutate-resourcebindings"' in server, "webhook_server.cpp does not serve /mutate-resourcebindings")


def check_propagation_policy():
    policy = the("PropagationPolicy", "volcano-jobs-via-gantry")
    spec = policy["spec"]
    expect_equal(spec["schedulerName"], "gantry", "schedulerName")
    expect_equal(spec["resourceSelectors"], [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job"}],
                 "resourceSelectors")
    expect_equal(spec["placement"]["replicaScheduling"]["replicaSchedulingType"], "Divided",
                 "replicaSchedulingType")


def main():
    missing = require_tools()
    if missing:
        for line in missing:
            print(f"FAIL {line}")
        print(f"0 passed, {len(missing)} failed")
        return 1

    checks = [("tools catch bad manifests", check_tools_catch_bad_manifests)]
    for path in yaml_files():
        checks.append((f"yamllint {path.name}", lambda p=path: check_yamllint(p, YAMLLINT_CONFIG)))
        checks.append((f"structure {path.name}", lambda p=path: check_structure(p)))
        if path.name != "kustomization.yaml":
            checks.append((f"kubectl decodes {path.name}", lambda p=path: check_kubectl_decodes(p)))
    checks += [
        ("kubectl kustomize deploy/karmada", check_kustomize_builds),
        ("RBAC is least privilege", check_rbac_least_privilege),
        ("hub Deployment", check_hub_deployment),
        ("hub Services", check_hub_service),
        ("MutatingWebhookConfiguration", check_webhook_configuration),
        ("PropagationPolicy example", check_propagation_policy),
    ]
    expect_files = {"namespace.yaml", "rbac.yaml", "hub.yaml", "webhook.yaml",
                    "propagationpolicy-example.yaml", "kustomization.yaml"}
    present = {p.name for p in yaml_files()}
    failed = 0
    if present != expect_files:
        print(f"FAIL manifest files: expected {sorted(expect_files)}, found {sorted(present)}")
        failed += 1
    return run_checks(checks, failed)


if __name__ == "__main__":
    sys.exit(main())
