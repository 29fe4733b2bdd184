#!/usr/bin/env bash
# bench-otlp-lateness.sh: does exporting every request's span (--otlp-endpoint) cost send
# timing? The same schedule (a replay gen trace at a fixed speed) against one `replay sim
# --zero-cost` process, with export off and on in turn, ROUNDS times, each run's send lateness
# p99 (summary.json's lateness_ms.p99) printed, then each arm's values side by side: export
# on passes when its p99s lie within the off runs' spread. Spans go to a real Collector when
# OTELCOL_BIN names one (e2e/otel/setup.sh prints it), else to a loopback sink that reads and
# drops each OTLP/HTTP request (the sink is
# this script's own, below). Take figures on a quiet machine.
#
# Usage: scripts/bench-otlp-lateness.sh [--rounds N] [--rate R] [--duration D] [--speed X]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rounds=5 rate=50 duration=60s speed=1
while (($#)); do
  case $1 in
  --rounds) rounds=$2; shift 2 ;;
  --rate) rate=$2; shift 2 ;;
  --duration) duration=$2; shift 2 ;;
  --speed) speed=$2; shift 2 ;;
  -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "bench-otlp-lateness.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "bench-otlp-lateness.sh: needs jq" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/replay-otlp-bench.XXXXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
go build -o "$work/replay" ./cmd/replay

# wait_url FILE: the first http://127.0.0.1:PORT a server wrote to FILE.
wait_url() {
  for _ in $(seq 1 100); do
    grep -o 'http://127.0.0.1:[0-9]*' "$1" | head -n 1 && return 0
    sleep 0.1
  done
  cat "$1" >&2
  return 1
}

"$work/replay" sim --zero-cost --tokenizer "$root/samples/tokenizer/mistral" --listen 127.0.0.1:0 >"$work/sim.log" 2>&1 &
pids+=($!)
sim=$(wait_url "$work/sim.log")/v1

if [[ -n ${OTELCOL_BIN:-} ]]; then
  port=$((20000 + RANDOM % 20000))
  printf 'receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:%s\nexporters:\n  file:\n    path: %s/spans.jsonl\n    format: json\nservice:\n  telemetry:\n    metrics:\n      level: none\n  pipelines:\n    traces:\n      receivers: [otlp]\n      exporters: [file]\n' "$port" "$work" >"$work/otelcol.yaml"
  "$OTELCOL_BIN" --config "$work/otelcol.yaml" >"$work/otelcol.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do grep -q "Everything is ready" "$work/otelcol.log" && break; sleep 0.1; done
  otlp=http://127.0.0.1:$port
  echo "spans to the Collector at $otlp"
else
  # A loopback OTLP/HTTP sink: answers every POST with an empty ExportTraceServiceResponse.
  mkdir -p "$work/sink"
  cat >"$work/sink/main.go" <<'GO'
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Printf("sink on http://%s\n", ln.Addr())
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
}
GO
  go run "$work/sink/main.go" >"$work/sink.log" 2>&1 &
  pids+=($!)
  otlp=$(wait_url "$work/sink.log")
  echo "spans to a loopback sink at $otlp (set OTELCOL_BIN for a real Collector)"
fi

"$work/replay" gen --shape chat --rate "$rate" --duration "$duration" --seed 3 --out "$work/trace.jsonl" 2>/dev/null
echo "schedule: $(wc -l <"$work/trace.jsonl") requests, rate $rate/s over $duration at speed $speed, $rounds rounds"

declare -a off on
for i in $(seq 1 "$rounds"); do
  for arm in off on; do
    args=()
    [[ $arm == on ]] && args=(--otlp-endpoint "$otlp")
    out=$work/$arm-$i
    "$work/replay" run --trace "$work/trace.jsonl" --endpoint "$sim" --model replay-sim --tokenizer "$root/samples/tokenizer/mistral" --speed "$speed" \
      --max-lateness none --checks none --progress plain "${args[@]}" --out "$out" >"$out.log" 2>&1 ||
      { tail -n 20 "$out.log" >&2; exit 1; }
    p99=$(jq -r '.lateness_ms.p99' "$out/summary.json")
    printf 'round %d export %-3s lateness p99 %s ms\n' "$i" "$arm" "$p99"
    if [[ $arm == on ]]; then on+=("$p99"); else off+=("$p99"); fi
  done
done
echo "export off: ${off[*]} ms"
echo "export on:  ${on[*]} ms"
