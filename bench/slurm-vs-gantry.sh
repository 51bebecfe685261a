#!/usr/bin/env bash
# slurm-vs-gantry.sh [N] [ROUNDS]: the same N trivial jobs (/bin/true) through
# Slurm (slurmctld + slurmd on localhost, one sbatch --wrap per job) and through
# Gantry (gantry-hub + one gantry-agent --executor process, submissions
# pipelined on the admin socket by gantry-bench-submit), alternating, ROUNDS
# rounds each. Prints a table; the last line is one JSON object:
#   {"slurm_jobs_per_s": ..., "gantry_jobs_per_s": ..., "ratio": ...}
# jobs/s = jobs started / (last job started - first submit), best round of each.
#
# Needs root (slurmd starts jobs as their user; apt-get), GNU date, ss, and a
# build of gantry-hub, gantry-agent and gantry-bench-submit (GANTRY_BUILD,
# default build; see bench/README.md). Installs slurm-wlm (and munge, its
# dependency) with apt-get when missing. Everything it starts listens on
# 127.0.0.1 only and is stopped on exit; its files live in one temp directory,
# removed on exit unless KEEP=1.
#
# Environment: GANTRY_BUILD (build dir), SLOTS (CPU slots of the one node of
# each system, default 64), SBATCH_PARALLEL (concurrent sbatch clients,
# default 4: kinder to Slurm than one after another), GANTRY_WINDOW (submissions
# in flight, default 64), KEEP=1 (keep the temp directory and logs).
set -euo pipefail

N=${1:-1000}
ROUNDS=${2:-2}
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${GANTRY_BUILD:-$REPO/build}
SLOTS=${SLOTS:-64}
PAR=${SBATCH_PARALLEL:-4}
WINDOW=${GANTRY_WINDOW:-64}
WORK=""
PIDS=()

log() { printf '%s\n' "$*" >&2; }
die() { log "slurm-vs-gantry: $*"; exit 1; }

# ------------------------------------------------------------------ daemons
# Every daemon runs in the foreground as our child, so its pid is known and
# only what this script started is ever stopped.
stop_pid() {
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

stop_all() {
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${PIDS[i]}"; done
  PIDS=()
}

cleanup() {
  stop_all
  if [[ -n $WORK && ${KEEP:-0} != 1 ]]; then rm -rf "$WORK"; fi
  if [[ -n $WORK && ${KEEP:-0} == 1 ]]; then log "kept $WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 40000))
    ss -Htln "sport = :$port" | grep -q . || { echo "$port"; return; }
  done
}

wait_until() {  # wait_until SECONDS COMMAND...: polls COMMAND every 0.2 s
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

now() { date +%s.%N; }

json_field() {  # json_field NAME JSON: a number field of gantry-bench-submit's line, else 0
  local value
  value=$(grep -o "\"$1\": [0-9.]*" <<<"$2" | awk '{ print $2 }')
  echo "${value:-0}"
}

# Nothing this script starts may listen beyond loopback.
check_loopback_only() {
  local pid bad=""
  for pid in "${PIDS[@]}"; do
    bad+=$(ss -Htlnp | grep "pid=$pid," | awk '$4 !~ /^127\.0\.0\.1:/ && $4 !~ /^\[::1\]:/' || true)
  done
  [[ -z $bad ]] || die "a daemon listens beyond loopback: $bad"
}

# ------------------------------------------------------------------ setup
preflight() {
  [[ $(id -u) == 0 ]] || die "run as root: slurmd launches jobs as their user, and apt-get may run"
  [[ $N =~ ^[1-9][0-9]*$ && $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "usage: $0 [N] [ROUNDS]"
  local binary
  for binary in gantry-hub gantry-agent gantry-bench-submit; do
    [[ -x $BUILD/bin/$binary ]] ||
      die "$BUILD/bin/$binary missing: cmake --build $BUILD --target gantry-hub gantry-agent gantry-bench-submit"
  done
  if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    log "installing slurm-wlm (apt-get)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm >/dev/null
  fi
  WORK=$(mktemp -d /tmp/slurm-vs-gantry.XXXXXX)
  mkdir -p "$WORK/slurm-out"
}

# A private munged on a socket in $WORK: no system service is touched.
start_munge() {
  dd if=/dev/urandom of="$WORK/munge.key" bs=1024 count=1 status=none
  chmod 400 "$WORK/munge.key"
  munged --foreground --force --socket="$WORK/munge.sock" --key-file="$WORK/munge.key" \
    --pid-file="$WORK/munged.pid" --log-file="$WORK/munged.log" --seed-file="$WORK/munged.seed" \
    2>>"$WORK/munged.log" &
  PIDS+=($!)
  wait_until 10 test -S "$WORK/munge.sock" || die "munged did not start; see $WORK/munged.log"
}

# One node with $SLOTS CPUs on 127.0.0.1. No(Ctld)InAddrAny make the daemons bind
# the configured address instead of 0.0.0.0. Accounting storage is off (no
# slurmdbd), so job start times come from jobcomp/filetxt (1 s resolution).
write_slurm_conf() {
  local ctld_port slurmd_port
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  mkdir -p "$WORK/slurm-state" "$WORK/slurmd-spool"
  cat >"$WORK/slurm.conf" <<EOF
ClusterName=bench
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
AuthType=auth/munge
AuthInfo=socket=$WORK/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$WORK/slurm-state
SlurmdSpoolDir=$WORK/slurmd-spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$WORK/jobcomp.txt
MaxJobCount=1000000
NodeName=benchnode NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$SLOTS RealMemory=65536 State=UNKNOWN
PartitionName=bench Nodes=benchnode Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$WORK/slurm.conf
}

node_idle() { [[ $(sinfo -h -N -o %T 2>/dev/null) == idle ]]; }

start_slurm() {
  : >"$WORK/jobcomp.txt"
  rm -rf "$WORK/slurm-state"/*
  slurmctld -D -c -f "$SLURM_CONF" >>"$WORK/slurmctld.out" 2>&1 &
  PIDS+=($!)
  slurmd -D -N benchnode -f "$SLURM_CONF" >>"$WORK/slurmd.out" 2>&1 &
  PIDS+=($!)
  wait_until 60 node_idle || die "the Slurm node never became idle; see $WORK/slurmctld.log"
  check_loopback_only
}

# ------------------------------------------------------------------ rounds
# Each round prints: system round jobs started submit_s last_start_s drain_s
queue_empty() { [[ -z $(squeue -h -o %i 2>/dev/null) ]]; }
jobcomp_complete() { (($(wc -l <"$WORK/jobcomp.txt") >= N)); }

slurm_round() {
  local round=$1 t0 t_submitted t_drained last_start started
  start_slurm
  cd "$WORK/slurm-out"
  t0=$(now)
  seq "$N" | xargs -P "$PAR" -I{} sbatch --quiet --job-name="t{}" --wrap=/bin/true ||
    log "some sbatch calls failed (counted through the started jobs)"
  t_submitted=$(now)
  wait_until 1800 queue_empty || log "the Slurm queue did not drain"
  t_drained=$(now)
  wait_until 30 jobcomp_complete || log "jobcomp lists fewer than $N jobs"
  cd "$WORK"
  started=$(grep -c 'StartTime=' "$WORK/jobcomp.txt" || true)
  # StartTime is local time to the second; its floor favours Slurm by < 1 s.
  last_start=$(grep -o 'StartTime=[0-9T:-]*' "$WORK/jobcomp.txt" | cut -d= -f2 | sort | tail -1)
  last_start=$(date -d "$last_start" +%s)
  awk -v r="$round" -v n="$N" -v s="$started" -v t0="$t0" -v ts="$t_submitted" \
    -v tl="$last_start" -v td="$t_drained" \
    'BEGIN { printf "slurm %d %d %d %.3f %.3f %.3f\n", r, n, s, ts - t0, tl - t0, td - t0 }'
  stop_all_but_munge
}

stop_all_but_munge() {  # munge (PIDS[0]) serves every Slurm round
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 1; i--)); do stop_pid "${PIDS[i]}"; done
  PIDS=("${PIDS[0]}")
}

write_inventory() {
  cat >"$WORK/inventory.yaml" <<EOF
cluster:
  name: local
nodes:
  - name: local-0
    allocatable: {cpu: "$SLOTS", memory: 64Gi}
EOF
}

# Hub and agent at their default log level (info), as Slurm at its default.
gantry_round() {
  local round=$1 agents admin state out
  agents=tcp://127.0.0.1:$(free_port)
  admin=tcp://127.0.0.1:$(free_port)
  state=$WORK/gantry-$round
  mkdir -p "$state"
  # Plaintext on loopback (--insecure): gantry-bench-submit speaks no CurveZMQ.
  "$BUILD/bin/gantry-hub" --insecure --agents "$agents" --admin "$admin" --state "$state" \
    >"$state/hub.log" 2>&1 &
  PIDS+=($!)
  # This script runs as root, and a root agent runs replicas only as another
  # user (or with --allow-root); /bin/true needs nothing of root's.
  "$BUILD/bin/gantry-agent" --insecure --hub "$agents" --cluster local \
    --inventory "$WORK/inventory.yaml" --executor process --run-as nobody \
    --work-dir "$state/work" >"$state/agent.log" 2>&1 &
  PIDS+=($!)
  out=$("$BUILD/bin/gantry-bench-submit" --hub "$admin" --jobs "$N" --prefix "r$round" \
    --window "$WINDOW" --clusters 1 --timeout 1800) || log "gantry round $round: $out"
  check_loopback_only
  stop_all_but_munge
  local t0
  t0=$(json_field first_submit_ms "$out")
  awk -v r="$round" -v n="$(json_field jobs "$out")" -v s="$(json_field started "$out")" \
    -v ta="$(json_field last_ack_ms "$out")" -v tl="$(json_field last_started_ms "$out")" \
    -v td="$(json_field last_finished_ms "$out")" -v t0="$t0" \
    'BEGIN { printf "gantry %d %d %d %.3f %.3f %.3f\n", r, n, s, (ta - t0) / 1000, (tl - t0) / 1000, (td - t0) / 1000 }'
}

# ------------------------------------------------------------------ report
# Best round of each system: other work on a shared machine only ever slows a
# round down, so the best is the least disturbed. The mean is printed too.
report() {
  awk '
    { rate = $6 > 0 ? $4 / $6 : 0
      printf "%-7s %5d %7d %8d %10.2f %14.2f %9.2f %14.1f\n", $1, $2, $3, $4, $5, $6, $7, rate
      if (rate > best[$1]) best[$1] = rate
      sum[$1] += rate; count[$1]++ }
    END {
      s = best["slurm"]; g = best["gantry"]
      printf "\nmean: slurm %.1f, gantry %.1f jobs started/s\n", sum["slurm"] / count["slurm"], sum["gantry"] / count["gantry"]
      ratio = s > 0 ? g / s : 0
      printf "best: slurm %.1f, gantry %.1f jobs started/s; ratio %.1fx (goal >= 30x: %s)\n",
        s, g, ratio, (ratio >= 30 ? "met" : "MISSED")
      printf "{\"slurm_jobs_per_s\": %.1f, \"gantry_jobs_per_s\": %.1f, \"ratio\": %.2f}\n", s, g, ratio
    }' "$WORK/rounds.txt"
}

main() {
  preflight
  write_slurm_conf
  write_inventory
  start_munge
  log "slurm-vs-gantry: $N jobs of /bin/true, $ROUNDS round(s) each, alternating; $SLOTS slots; $(nproc) cores"
  : >"$WORK/rounds.txt"
  local round
  for round in $(seq "$ROUNDS"); do
    log "round $round: slurm"
    slurm_round "$round" >>"$WORK/rounds.txt"
    log "round $round: gantry"
    gantry_round "$round" >>"$WORK/rounds.txt"
  done
  printf '%-7s %5s %7s %8s %10s %14s %9s %14s\n' system round jobs started submit_s last_start_s drain_s started_per_s
  report
}

main "$@"
