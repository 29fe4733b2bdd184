#!/usr/bin/env bash
# deploy/slurm/submit.sh RESULTS [replay run flags...]: submits a sharded replay as a Slurm
# job array (replay-array.sbatch, one task a shard) and its merge (replay-merge.sbatch) behind
# it, and prints the two job ids as `array=ID merge=ID`. The start is chosen here, once, a
# lead ahead of now, and handed to every task. RESULTS is the run's folder on storage every
# node shares; it must not exist yet or be empty. Each task's stdout and stderr go to
# RESULTS/logs/shard-K.out and .err, the merge's to RESULTS/logs/merge.out and .err.
#
# Environment:
#   REPLAY_SHARDS  N, the number of tasks (default 4)
#   REPLAY_LEAD    seconds from now to the start (default 60): time for every task to be
#                  scheduled and started; a task that starts later sends what is already due
#                  at once and records the lateness
#   REPLAY_BIN     replay's binary on the nodes (default: replay on PATH)
#   SBATCH_*       sbatch's own input variables (e.g. SBATCH_PARTITION, SBATCH_ACCOUNT)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if (($# < 1)) || [[ $1 == -* ]]; then
  echo "usage: $0 RESULTS [replay run flags: --trace F --endpoint URL --model M --tokenizer T ...]" >&2
  exit 2
fi
results=$1
shift
shards=${REPLAY_SHARDS:-4}
lead=${REPLAY_LEAD:-60}
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "$0: REPLAY_SHARDS=$shards: want a count of at least 1" >&2; exit 2; }
[[ $lead =~ ^[0-9]+$ ]] || { echo "$0: REPLAY_LEAD=$lead: want whole seconds" >&2; exit 2; }
if [[ -e $results && -n $(ls -A "$results") ]]; then
  echo "$0: $results is not empty: give each run a folder of its own" >&2
  exit 2
fi
mkdir -p "$results/logs"
results=$(cd "$results" && pwd) # the tasks run elsewhere: an absolute path
start=$(($(date +%s) + lead))
export REPLAY_START_AT=$start REPLAY_RESULTS=$results REPLAY_SHARDS=$shards
array=$(sbatch --parsable --export=ALL --array=0-$((shards - 1)) \
  --output="$results/logs/shard-%a.out" --error="$results/logs/shard-%a.err" \
  "$here/replay-array.sbatch" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --export=ALL --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
  --output="$results/logs/merge.out" --error="$results/logs/merge.err" \
  "$here/replay-merge.sbatch")
merge=${merge%%;*}
echo "array=$array merge=$merge start=$start results=$results"
