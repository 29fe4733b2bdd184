#!/usr/bin/env bash
# e2e/slurm/e2e.sh: a sharded replay run by a real scheduler. Starts munge, slurmctld and
# slurmd on 127.0.0.1 with a configuration and folders of its own under a temporary folder
# (SLURM_CONF points there; the system's Slurm and munge configuration is never read or
# touched), then submits deploy/slurm's job array (4 tasks, one shard each, `--shard auto`)
# and its merge job against a `replay sim` with --arrival-log, exactly as the guide does.
# Checks, with slurmcheck (main.go here): the merged run has exactly the
# request ids of an unsharded replay of the same trace, and the combined schedule as the server
# saw it: median lateness within 2 ms (a shard that read the start wrong is tens of ms off),
# p99 within 10 ms of one process's on the same machine (the tail of four senders and the
# server on two cores is the machine's; the quiet figure is in BENCHMARKS.md, "Shards"). Then an array with one task made to fail (task 2
# given a bad flag through REPLAY_BIN, a wrapper): the merge job must not run, and the script
# names the task and its stderr file. Every daemon it started is stopped by its pid on exit.
# Installs Debian's slurmctld, slurmd, slurm-client and munge when missing (about 15 s);
# runs as root (SlurmUser=root), as CI does. REPLAY_SLURM_KEEP=1 keeps the temporary folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
t0=$(date +%s.%N)
say() { echo "e2e/slurm: $*" >&2; }
. "$root/e2e/proc.sh" # alive, stop, free_port
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

need=()
for p in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
  command -v "${p%%:*}" >/dev/null || need+=("${p#*:}")
done
if ((${#need[@]})); then
  sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  say "apt-get install ${need[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
[[ $(id -u) == 0 ]] || { say "run as root: slurmd starts the tasks as their user and SlurmUser is root here"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/replay-slurm.XXXXXX")
chmod 711 "$work" # munged wants its socket reachable by all, in folders only its owner writes
export SLURM_CONF=$work/slurm.conf
pids=()
cleanup() {
  local rc=$? i
  if [[ -n ${submitted:-} ]] && alive "${ctld:-}"; then timeout 10 scancel $submitted 2>/dev/null || true; fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[i]}"; done
  if ((rc != 0)); then
    for f in "$work"/slurmctld.log "$work"/slurmd.log "$work"/sim.log; do
      [[ -s $f ]] && { say "last lines of $f:"; tail -n 15 "$f" >&2; }
    done
  fi
  if [[ ${REPLAY_SLURM_KEEP:-} == 1 ]]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# Munge: its own key, socket, pid, log and seed under $work.
mkdir -p "$work/munge"
chmod 711 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged -F --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" &
pids+=($!)

host=$(hostname -s)
cport=$(free_port)
dport=$(free_port)
mkdir -p "$work/state" "$work/spool"
# One node of 8 CPUs (config_overrides: more than this machine has, so the 4 tasks of 2 CPUs
# each run at once, as they must: they share one schedule).
cat >"$SLURM_CONF" <<EOF
ClusterName=replay-e2e
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=e2e Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
for i in $(seq 50); do [[ -S $socket ]] && break; sleep 0.1; done
[[ -S $socket ]] || { say "munged did not start:"; cat "$work/munge/munged.log" >&2; exit 1; }
slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
ctld=$!
pids+=($ctld)
slurmd -D -N "$host" >"$work/slurmd.out" 2>&1 &
slurmd=$!
pids+=($slurmd)

# While the daemons come up: replay, the checker and the trace.
go build -o "$work/replay" ./cmd/replay
go build -o "$work/slurmcheck" ./e2e/slurm
tok=$root/samples/tokenizer/mistral
"$work/replay" gen --out "$work/trace.jsonl" --duration 8s --rate 60 --seed 7
rows=$(wc -l <"$work/trace.jsonl")

# start_sim PORT [flags]: a replay sim on 127.0.0.1:PORT, its pid in $pids and in $sim_pid.
start_sim() {
  local port=$1 i
  shift
  # Niced: the lateness is read off the kernel's receive time of each request, which the sim's
  # own scheduling does not move, so the senders get the cores first.
  nice -n 10 "$work/replay" sim --listen "127.0.0.1:$port" --tokenizer "$tok" --zero-cost "$@" 2>>"$work/sim.log" &
  sim_pid=$!
  pids+=($sim_pid)
  for i in $(seq 200); do
    curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && return
    alive "$sim_pid" || break
    sleep 0.05
  done
  say "replay sim on port $port did not start"
  return 1
}
run_flags() { echo --endpoint "http://127.0.0.1:$1/v1" --model replay-sim --tokenizer "$tok" --metrics-url none; }

node_state() { timeout 5 sinfo -h -o %t 2>/dev/null || true; }
for i in $(seq 150); do
  alive "$ctld" || { say "slurmctld exited:"; tail -n 5 "$work/slurmctld.out" >&2; exit 1; }
  alive "$slurmd" || { say "slurmd exited:"; tail -n 5 "$work/slurmd.out" >&2; exit 1; }
  [[ $(node_state) == idle ]] && break
  sleep 0.2
done
[[ $(node_state) == idle ]] || { say "the Slurm node never became idle: $(node_state)"; exit 1; }
t_ready=$(date +%s.%N)

# The reference, one process from a start 3 s ahead (time to build its prompts), is
# measured as the shards are (no behaviour checks, as in a shard): its lateness is printed
# beside theirs, and not judged (--max-lateness 0); it runs once the daemons are idle.
refport=$(free_port)
start_sim "$refport" --arrival-log "$work/reference-arrivals.tsv"
refstart=$(($(date +%s) + 3))
"$work/replay" run --trace "$work/trace.jsonl" $(run_flags "$refport") --checks none --max-lateness 0 --start-at "$refstart" --out "$work/reference" \
  >"$work/reference.out" 2>"$work/reference.log" || { say "the unsharded reference run failed:"; cat "$work/reference.log" >&2; exit 1; }
stop "$sim_pid"

# task_line JOB K: the task's `scontrol -o show job` line.
task_line() { timeout 10 scontrol -o show job "$1" 2>/dev/null | grep -E "(^| )ArrayTaskId=$2( |$)" || true; }
field() { sed -n "s/\(^\|.* \)$1=\([^ ]*\).*/\2/p" <<<"$2"; }

# wait_merge ARRAY MERGE SECONDS: waits until the merge job has ended; prints its state.
wait_merge() {
  local state i
  for i in $(seq $((${3} * 5))); do
    alive "$ctld" || { echo "unknown: slurmctld exited"; return; }
    state=$(field JobState "$(timeout 10 scontrol -o show job "$2" 2>/dev/null)")
    case $state in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY)
      echo "$state"
      return
      ;;
    esac
    sleep 0.2
  done
  echo "${state:-UNKNOWN}(timed out)"
}

# failed_tasks ARRAY N RESULTS: names each task of the array that did not complete, with its
# state, exit code and the end of its stderr file; prints how many.
failed_tasks() {
  local bad=0 line state k
  for ((k = 0; k < $2; k++)); do
    line=$(task_line "$1" "$k")
    state=$(field JobState "$line")
    [[ $state == COMPLETED ]] && continue
    bad=$((bad + 1))
    say "task $k (job ${1}_$k) ${state:-unknown}, exit $(field ExitCode "$line"); its stderr, $3/logs/shard-$k.err:"
    tail -n 5 "$3/logs/shard-$k.err" 2>/dev/null | sed 's/^/    /' >&2 || true
  done
  echo "$bad"
}

# submit RESULTS LEAD BIN [replay run flags]: deploy/slurm/submit.sh as the guide runs it;
# sets $array and $merge.
submit() {
  local out
  out=$(REPLAY_SHARDS=4 REPLAY_LEAD=$2 REPLAY_BIN=$3 deploy/slurm/submit.sh "$1" "${@:4}")
  array=$(sed -n 's/.*array=\([0-9]*\).*/\1/p' <<<"$out")
  merge=$(sed -n 's/.*merge=\([0-9]*\).*/\1/p' <<<"$out")
  submitted="${submitted:-} $array $merge"
  say "submitted: $out"
}

# 1. The sharded run: 4 tasks, then the merge, against a sim logging arrivals. The lead
# leaves slurmctld time to start the array: it may hold a batch job up to 3 s
# (SchedulerParameters' batch_sched_delay), and a task started after the start is late.
lead=5
port=$(free_port)
start_sim "$port" --arrival-log "$work/arrivals.tsv"
shard_sim=$sim_pid
t_submit=$(date +%s.%N)
# Each task's own verdict is not what decides (--max-lateness 0): four senders and the server
# share two cores here, and a shard judged client-bound would cancel the merge; slurmcheck
# judges the merged schedule on the server's clock instead.
submit "$work/run" "$lead" "$work/replay" --trace "$work/trace.jsonl" $(run_flags "$port") --max-lateness 0
state=$(wait_merge "$array" "$merge" 90)
t_merged=$(date +%s.%N)
if [[ $state != COMPLETED ]]; then
  say "the merge job ended $state"
  failed_tasks "$array" 4 "$work/run" >/dev/null
  [[ -s $work/run/logs/merge.err ]] && { say "merge's stderr:"; cat "$work/run/logs/merge.err" >&2; }
  exit 1
fi
stop "$shard_sim" # the arrival log is complete once the sim stops
for k in 0 1 2 3; do grep -h "^replay: --shard auto" "$work/run/logs/shard-$k.err" >&2 || true; done
"$work/slurmcheck" --merged "$work/run/merged" --reference "$work/reference" --shard "$work/run/shard-0" \
  --arrivals "$work/arrivals.tsv" --reference-arrivals "$work/reference-arrivals.tsv" --reference-start "$refstart"
say "trace of $rows requests; 4 tasks and the merge took $(since "$t_submit" "$t_merged") s from submission ($lead s lead)"

# 2. One task fails: task 2 gets a bad --speed (through REPLAY_BIN, a wrapper), so it exits
# at once; the merge must be cancelled, never run, and the script must say which task and why.
# The other tasks' timing is not what this part checks (--max-lateness 0: not judged), so
# its lead is short.
cat >"$work/replay-fail-2" <<EOF
#!/bin/bash
[[ \$SLURM_ARRAY_TASK_ID == 2 ]] && exec "$work/replay" "\$@" --speed fast
exec "$work/replay" "\$@"
EOF
chmod +x "$work/replay-fail-2"
port=$(free_port)
start_sim "$port"
submit "$work/fail" 1 "$work/replay-fail-2" --trace "$work/trace.jsonl" $(run_flags "$port") --limit 20 --max-lateness 0
state=$(wait_merge "$array" "$merge" 60)
report=$(failed_tasks "$array" 4 "$work/fail" 2>&1 >/dev/null)
echo "$report" >&2
merge_line=$(timeout 10 scontrol -o show job "$merge")
if [[ $state != CANCELLED || $(field RunTime "$merge_line") != 00:00:00 || -e $work/fail/merged ]]; then
  say "FAIL: with task 2 failed the merge job ended $state after $(field RunTime "$merge_line") (want CANCELLED, never run)"
  exit 1
fi
if ! grep -q "^e2e/slurm: task 2 (job ${array}_2) FAILED, exit [1-9]" <<<"$report" || ! grep -q -- "--speed" <<<"$report" ||
  [[ $(grep -c "^e2e/slurm: task" <<<"$report") != 1 ]]; then
  say "FAIL: want exactly task 2 named, FAILED with a non-zero exit and its --speed error from its stderr file"
  exit 1
fi
say "task 2 failed, the merge job was $state ($(field Reason "$merge_line")), never run"
# The guide's merge by hand of the folders left: shard 2, which has none, is named missing.
set +e
"$work/replay" merge --quiet --out "$work/fail/by-hand" "$work"/fail/shard-* >"$work/fail/by-hand.out" 2>&1
rc=$?
set -e
if ((rc != 0)) || ! grep -q "shard 2 of 4 is missing" "$work/fail/by-hand.out"; then
  say "FAIL: the merge by hand of the folders left: exit $rc, want 0 and shard 2 named missing:"
  cat "$work/fail/by-hand.out" >&2
  exit 1
fi
say "merge by hand of the 3 folders left: $(grep -o 'verdict: .*' "$work/fail/by-hand.out")"
t1=$(date +%s.%N)
say "ok: wall $(since "$t0" "$t1") s, load average $(cut -d' ' -f1-3 /proc/loadavg) (daemons idle after $(since "$t0" "$t_ready") s)"
