#!/usr/bin/env bash
# bench-build-rate.sh: the prompt builder's rate on the default shapes, this checkout against a
# base commit, in one invocation: BenchmarkDefaultShapes (synth/bench_test.go: a minute of
# `replay gen` at 100 req/s, 5,858 prompts, the embedded Mistral tokenizer, every prompt
# verified by re-encoding, on every core) run in turn on each side, ROUNDS times, the base
# given this checkout's benchmark file. Prints each run, the medians, their ratio and uptime.
# Run it on a quiet machine (1-minute load under 1).
# Usage: scripts/bench-build-rate.sh [BASE_REF (default 3d94dbb^, before the speed-up)] [ROUNDS (default 3)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-3d94dbb^}
rounds=${2:-3}
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$root" worktree add -q --detach "$tmp/base" "$base"
cp "$root/synth/bench_test.go" "$tmp/base/synth/bench_test.go"
echo "uptime: $(uptime)"
rate() { (cd "$1" && go test ./synth -run XXX -bench DefaultShapes -benchtime 3x -count 1) | awk '/^BenchmarkDefaultShapes/ { for (i = 1; i <= NF; i++) if ($(i+1) == "prompts/s") print $i }'; }
for side in base head; do (cd "$([[ $side == base ]] && echo "$tmp/base" || echo "$root")" && go test -c -o /dev/null ./synth); done
declare -a b h
for ((r = 1; r <= rounds; r++)); do
  b+=("$(rate "$tmp/base")")
  h+=("$(rate "$root")")
  echo "round $r: base $(git -C "$root" rev-parse --short "$base") ${b[-1]} prompts/s, head $(git -C "$root" rev-parse --short HEAD) ${h[-1]} prompts/s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
mb=$(median "${b[@]}") mh=$(median "${h[@]}")
echo "median: base $mb, head $mh prompts/s, head/base $(awk -v a="$mh" -v b="$mb" 'BEGIN { printf "%.2f", a / b }')"
echo "uptime: $(uptime)"
