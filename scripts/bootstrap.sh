#!/usr/bin/env bash
# Installs every Debian bookworm package Gantry's build, tests and examples need.
# Idempotent: does nothing when everything is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libcaf-dev libboost-dev
  libzmq3-dev cppzmq-dev libsodium-dev
  libmsgpack-cxx-dev libspdlog-dev libyaml-cpp-dev libsqlite3-dev
  libgtest-dev
  libcli11-dev nlohmann-json3-dev   # command lines (CLI11) and JSON
  libssl-dev openssl   # HTTPS clients (Kubernetes / Karmada API) and the admission webhook
  yamllint   # deploy/ manifests are linted
  python3 python3-torch   # the gang end-to-end test rendezvous with real gloo
  prometheus   # tests/e2e/metrics_test.py scrapes a real hub (promtool checks deploy/prometheus)
  chromium   # tests/e2e/web_view_test.py drives the hub's web view in headless Chromium
  etcd-server   # tests/etcd (etcd_test) runs the etcd client against a real etcd (3.4)
  # libFuzzer targets (tests/fuzz): clang with its sanitizer and fuzzer runtimes
  # (libclang-rt-14-dev is only a Recommends of clang-14, and this installs none).
  clang-14 libclang-rt-14-dev libfuzzer-14-dev
)
# deploy/ manifests are decoded with kubectl (client side only): Debian's
# kubernetes-client, unless a kubectl is installed already (another package
# of it would conflict on /usr/bin/kubectl).
if ! command -v kubectl >/dev/null 2>&1; then packages+=(kubernetes-client); fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "bootstrap: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
