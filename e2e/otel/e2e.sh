#!/usr/bin/env bash
# e2e/otel/e2e.sh: replay's spans reach a real OpenTelemetry Collector and come back as a trace.
# Builds the Collector (setup.sh: otlp receiver and file exporter, v0.165.0; about 3-5 min and
# 1 GB of module cache cold on 2 cores, cached in .cache/otelcol), starts it on 127.0.0.1 with
# its file exporter writing JSON, runs `replay run` of a small `replay gen` trace against
# `replay sim --arrival-log` with --otlp-endpoint at the Collector, stops the Collector by its
# pid (its file exporter flushes on shutdown), then runs otlp's TestCollectorRoundTrip over the
# folder: exactly one span per row with the row's trace id, counts and GenAI attribute names;
# the server saw every request's traceparent; --format otlp reads the file back as the rows'
# starts and counts, all of them (the run is not judged on its lateness: on a shared CI
# machine a client-bound verdict says nothing of the spans). Then `replay ingest --format
# otlp` of the file must write as many records. About 30 s warm.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
eval "$(e2e/otel/setup.sh | tail -n 1)"

work=$(mktemp -d "${TMPDIR:-/tmp}/replay-otel.XXXXXX")
col_pid="" sim_pid=""
cleanup() {
  [[ -n $sim_pid ]] && kill "$sim_pid" 2>/dev/null || true
  [[ -n $col_pid ]] && kill "$col_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/replay" ./cmd/replay
tok=$root/samples/tokenizer/mistral

# The Collector, on a free port: tried on a few random ones until it says it is ready.
for _ in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 20000))
  cat >"$work/otelcol.yaml" <<YAML
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:$port
exporters:
  file:
    path: $work/spans.jsonl
    format: json
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
YAML
  "$OTELCOL_BIN" --config "$work/otelcol.yaml" >"$work/otelcol.log" 2>&1 &
  col_pid=$!
  for _ in $(seq 1 100); do
    grep -q "Everything is ready" "$work/otelcol.log" && break
    kill -0 "$col_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q "Everything is ready" "$work/otelcol.log" && break
  kill "$col_pid" 2>/dev/null || true
  wait "$col_pid" 2>/dev/null || true
  col_pid=""
done
[[ -n $col_pid ]] || { tail -n 20 "$work/otelcol.log" >&2; echo "e2e/otel: the Collector did not start" >&2; exit 1; }

# The simulator with its arrival log, on a port of its own choosing.
"$work/replay" sim --listen 127.0.0.1:0 --tokenizer "$tok" --arrival-log "$work/arrivals.tsv" >"$work/sim.log" 2>&1 &
sim_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'http://127.0.0.1:[0-9]*/v1' "$work/sim.log" || true)
  [[ -n $url ]] && break
  sleep 0.1
done
[[ -n $url ]] || { cat "$work/sim.log" >&2; exit 1; }

"$work/replay" gen --shape mixed --duration 40s --rate 3 --seed 5 --out "$work/trace.jsonl"
n=$(wc -l <"$work/trace.jsonl")
"$work/replay" run --trace "$work/trace.jsonl" --endpoint "$url" --model replay-sim --tokenizer "$tok" \
  --speed 4 --max-lateness none --checks none --otlp-endpoint "http://127.0.0.1:$port" --out "$work/run" >"$work/run.log" 2>&1 ||
  { tail -n 30 "$work/run.log" >&2; exit 1; }
grep 'OTLP:' "$work/run.log"

# Both servers stop by pid: the simulator flushes its arrival log, the Collector its file.
kill -TERM "$sim_pid" && wait "$sim_pid" || true
sim_pid=""
kill -TERM "$col_pid" && wait "$col_pid" || true
col_pid=""

REPLAY_OTEL_E2E=$work go test -count=1 -run '^TestCollectorRoundTrip$' -v ./otlp 2>&1 | tee "$work/check.log" | grep -E '^(--- |ok|FAIL|PASS)|rows:' || true
grep -q '^--- PASS: TestCollectorRoundTrip' "$work/check.log" || { cat "$work/check.log" >&2; exit 1; }

"$work/replay" ingest --trace "$work/spans.jsonl" --format otlp --out "$work/back.parquet" >"$work/ingest.log" 2>&1 ||
  { cat "$work/ingest.log" >&2; exit 1; }
grep -q "\"records\":$n," "$work/ingest.log" || { cat "$work/ingest.log" >&2; echo "e2e/otel: replay ingest --format otlp did not read $n records" >&2; exit 1; }
echo "e2e/otel: $n requests: the Collector's file holds one span per row (trace id, counts, GenAI names), the server saw each traceparent, --format otlp reads back $n records with the rows' starts and counts"
