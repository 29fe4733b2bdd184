#!/usr/bin/env bash
# The replay benchmarks of BENCHMARKS.md in one command: send lateness at 1,000 and 5,000 req/s,
# sustained req/s at offered rates up to 20,000 (with a bare net/http reference), SSE chunks/s
# absorbed and peak RSS with 10,000 open streams, all against the zero-cost simulator in its own
# process on loopback. Each benchmark runs in a fresh process, so memory figures are its own.
# Don't run it under chrt -f: at real-time priority the replay and the simulator starve the
# kernel's loopback work and livelock.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
go build -o bin/replay ./cmd/replay
go test -c -o bin/runner.test ./runner
cd runner
for b in Lateness MaxRate Chunks OpenStreams; do
  REPLAY_BIN=../bin/replay timeout 300 ../bin/runner.test -test.run '^$' -test.bench "Replay$b" -test.benchtime 1x | grep -E '^Benchmark|FAIL|panic' || true
done
