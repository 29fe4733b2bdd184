#!/usr/bin/env bash
# Plan memory (BENCHMARKS.md, "Plan memory"): a 3-hour window of the default shapes at 30 req/s
# (328,000 requests, ~3,000 prompt tokens each) replayed against the built-in simulator, its
# prompts built before the run (--plan-memory all, the reference) and as the run goes (the
# default): peak resident memory and time to the first send, each run stopped after 5 s of
# sending; then the send lateness of 60 s at 2x, the window streamed against the same first
# 12,000 records built before the run, so the builder's cost to the sends shows. About 12
# minutes; needs /usr/bin/time and python3. Run it on a quiet machine only: it prints `uptime`
# before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "bench-plan-memory: needs /usr/bin/time (Debian package: time)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-plan-memory: needs python3" >&2; exit 1; }
mkdir -p bin
go build -o bin/replay ./cmd/replay
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin/replay gen --duration 3h --rate 30 --seed 2 --out "$work/trace.jsonl" 2>/dev/null
echo "before: $(uptime)"

# run NAME ARGS...: replays the window into $work/NAME; prints peak RSS (KiB), seconds to the
# first send and the lateness figures.
run() {
	local name=$1
	shift
	local start
	start=$(date +%s.%N)
	/usr/bin/time -f "%M" -o "$work/$name.rss" bin/replay run --trace "$work/trace.jsonl" --progress plain --out "$work/$name" "$@" \
		2> >(while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done >"$work/$name.err") >/dev/null || true
	sleep 1 # the stamping reader drains
	python3 - "$name" "$start" "$work" <<'EOF'
import json, sys
name, start, work = sys.argv[1], float(sys.argv[2]), sys.argv[3]
first = None
for line in open(f"{work}/{name}.err"):
    t, _, msg = line.partition(" ")
    if "before the first send" in msg or "open-loop replay" in msg:
        first = float(t) - start  # the last of these lines comes just before the first send
rss = int(open(f"{work}/{name}.rss").read().split()[-1]) / 2**20
s = json.load(open(f"{work}/{name}/summary.json"))
l = s["lateness_ms"]
print(f"| {name} | {s['requests']['total']} | {rss:.2f} GiB | {first:.1f} s | {l['p50']:.3f} | {l['p99']:.3f} | {l['max']:.3f} | {s['verdict'][:40]} |")
EOF
}

echo "| run | requests sent | peak RSS | to first send | lateness p50 ms | p99 ms | max ms | verdict |"
echo "|---|---|---|---|---|---|---|---|"
run eager-all --speed 4 --duration 5s --plan-memory all
run streamed --speed 4 --duration 5s
run eager-12k-2x --speed 2 --duration 60s --limit 12000
run streamed-2x --speed 2 --duration 60s
echo
echo "after: $(uptime)"
