#!/usr/bin/env bash
# Send timing from the server's side (BENCHMARKS.md, "Arrival timing"): Poisson schedules at
# 1,000-10,000 req/s replayed against `replay sim --zero-cost --arrival-log` in its own process,
# server-clock lateness beside replay's own figure and beside vegeta sending the same schedule
# (vegeta's library, module github.com/tsenart/vegeta/v12 in bench/arrival/go.mod, built here),
# both on-time ceilings on a 10k/12.5k/15k/20k grid, client CPU per streamed chunk at 64 and 256
# streams, and the default run's lateness. About 6 minutes. Run it on a quiet machine only: it
# prints `uptime` before and after, and a 1-minute load over 1 makes the figures noise.
# Flags are passed to the benchmark (bin/arrival-bench -h lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
go build -o bin/replay ./cmd/replay
(cd bench/arrival && go build -o ../../bin/arrival-bench .)
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "before: $(uptime)"
bin/arrival-bench "$@"
echo
echo "after: $(uptime)"
