#!/usr/bin/env bash
# The replay benchmarks of BENCHMARKS.md in one command: send lateness at 1,000 and 5,000 req/s,
# max sustained req/s (with a bare net/http reference), SSE chunks/s absorbed and peak RSS with
# 10,000 open streams, all against the zero-cost simulator in its own process on loopback.
# Binaries are built first, so that `--rt` (run under SCHED_FIFO, as a dedicated load-generator
# host would give) never runs the compiler at real-time priority.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
go build -o bin/replay ./cmd/replay
go test -c -o bin/runner.test ./runner
prefix=()
if [ "${1:-}" = "--rt" ]; then prefix=(chrt -f 10); fi
cd runner
REPLAY_BIN=../bin/replay "${prefix[@]}" ../bin/runner.test -test.run '^$' -test.bench Replay -test.benchtime 1x
