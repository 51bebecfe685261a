#!/usr/bin/env bash
# Installs what is missing, builds Gantry, starts a hub and three local member
# clusters (one agent each, embedded defaults, state under ./var), submits the
# example jobs and shows them.
#   scripts/up.sh          keep serving until Ctrl-C, then stop everything cleanly
#   scripts/up.sh --once   exit 0 once every example job is Completed, non-zero otherwise
# For tests (tests/e2e/readme_tour_test.py runs this script, then the README's
# tour): GANTRY_BIN_DIR=DIR uses the binaries built there and installs and
# builds nothing; GANTRY_UP_STATE=DIR keeps the state there instead of ./var;
# GANTRY_UP_PORT=N listens on N (agents), N+1 (admin) and N+2 (HTTP), not 7800-7802.
set -euo pipefail
cd "$(dirname "$0")/.."

once=0
[ "${1:-}" = "--once" ] && once=1

if [ -n "${GANTRY_BIN_DIR:-}" ]; then
  bin=$GANTRY_BIN_DIR
else
  bash scripts/bootstrap.sh
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j "$(nproc)" --target gantry-hub gantry-agent gantryctl
  bin=build/bin
fi

port=${GANTRY_UP_PORT:-7800}
hub_agents=tcp://127.0.0.1:$port
hub_admin=tcp://127.0.0.1:$((port + 1))
hub_http=127.0.0.1:$((port + 2))
export GANTRY_HUB=$hub_admin
var=${GANTRY_UP_STATE:-var}
# Every run is a fresh demo: the example jobs would clash with a previous run's.
rm -rf "$var"
mkdir -p "$var/log"
pids=()

stop_all() {
  trap - INT TERM EXIT
  if [ ${#pids[@]} -gt 0 ]; then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# A root agent refuses to run replicas as root (docs/agents.md): as root,
# east runs them as nobody, who must reach its plugin files under var/ (or GANTRY_UP_STATE).
process_args=()
if [ "$(id -u)" = 0 ]; then
  process_args=(--run-as nobody)
  if ! runuser -u nobody -- test -x "$(realpath "$var")"; then
    echo "up.sh: user nobody cannot reach $(realpath "$var") (east's replicas run as nobody when" \
      "up.sh runs as root); use a checkout nobody can reach, or run up.sh as a normal user" >&2
    exit 1
  fi
fi

# Keys (README, "Keys"; docs/security.md): the hub's keypair, one per agent
# bound to its cluster, and this user's gantryctl key (kept across runs) as admin.
config_dir=${GANTRY_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/gantry}
"$bin/gantryctl" keys generate hub --dir "$var" >/dev/null
if [ ! -f "$config_dir/gantryctl.key" ]; then
  "$bin/gantryctl" keys generate gantryctl --dir "$config_dir" >/dev/null
fi
install -m 0644 "$var/hub.pub" "$config_dir/hub.pub"
{
  echo "agents:"
  for name in east west gpu8; do
    "$bin/gantryctl" keys generate "agent-$name" --dir "$var/keys" >/dev/null
    printf '  - name: agent-%s\n    public_key_file: keys/agent-%s.pub\n    clusters: [%s]\n' \
      "$name" "$name" "$name"
  done
  echo "admins:"
  printf '  - name: %s\n    public_key_file: %s\n    role: admin\n' "$(id -un)" \
    "$config_dir/gantryctl.pub"
} >"$var/access.yaml"

# Prometheus metrics on 127.0.0.1:7802 (README, "Metrics"; the token in var/metrics.token).
"$bin/gantry-hub" --agents "$hub_agents" --admin "$hub_admin" --state "$var" \
  --http-listen "$hub_http" >"$var/log/hub.log" 2>&1 &
pids+=($!)
# east runs replicas as real local processes; west and gpu8 simulate them.
for cluster in east:process west:sim gpu8:sim; do
  name=${cluster%%:*}
  executor=${cluster##*:}
  extra=()
  [ "$executor" = process ] && extra=("${process_args[@]}")
  "$bin/gantry-agent" --hub "$hub_agents" --cluster "$name" --executor "$executor" \
    --inventory "examples/inventories/$name.yaml" --work-dir "$var/agent-$name" \
    --hub-key "$var/hub.pub" --key "$var/keys/agent-$name.key" "${extra[@]}" \
    >"$var/log/agent-$name.log" 2>&1 &
  pids+=($!)
done

echo "waiting for three ready clusters..."
for _ in $(seq 1 150); do
  ready=$("$bin/gantryctl" get clusters -o json 2>/dev/null | grep -o '"ready": *true' | wc -l || true)
  [ "$ready" -ge 3 ] && break
  sleep 0.2
done
"$bin/gantryctl" get clusters

# The directory in one round trip: every job's name on its own line.
submitted=$("$bin/gantryctl" submit -f examples/jobs/)
mapfile -t jobs <<<"$submitted"
"$bin/gantryctl" get jobs

if [ "$once" = 1 ]; then
  status=0
  for job in "${jobs[@]}"; do
    "$bin/gantryctl" wait job "$job" --for phase=Completed --timeout 120s || status=1
  done
  "$bin/gantryctl" get jobs
  exit $status
fi

echo "serving; logs in $var/log; Ctrl-C stops. In another shell, the README's tour:"
echo "  export PATH=\"$(realpath "$bin"):\$PATH\"; gantryctl get jobs"
echo "metrics: curl -H \"Authorization: Bearer \$(cat $var/metrics.token)\" http://$hub_http/metrics"
echo "web view: open the URL gantryctl web prints"
wait "${pids[0]}"
