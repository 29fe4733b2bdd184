#!/usr/bin/env bash
# e2e/report/e2e.sh: the reports render offline in a real browser. Replays a slice of the
# default generated workload against the built-in simulator, then opens its report.html in headless
# Chromium (Debian's chromium, installed when missing) with the network unused, and checks the
# screenshot shows the page's plots (scripts/screenshot-report.sh); then the same for a short
# sweep's sweep.html; then a paired run's compare.html (two `replay sim` processes, behaviour
# checks on), whose first screen must hold the verdict, the checks and both difference plots.
# Exit 0 only when all three do.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  echo "e2e/report: apt-get install chromium" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq chromium >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/replay-report.XXXXXX")
sims=()
cleanup() {
  for p in "${sims[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/replay" ./cmd/replay
"$work/replay" run --speed 8 --limit 300 --slo ttft=500ms,itl=60ms --out "$work/run" >"$work/run.log" 2>&1 ||
  { tail -n 30 "$work/run.log" >&2; exit 1; }
scripts/screenshot-report.sh "$work/run" "$work/report.png"
echo "e2e/report: report.html rendered offline with its plots ($(stat -c %s "$work/report.png") bytes of screenshot)"
"$work/replay" sweep --speeds 4,16 --limit 150 --slo ttft=500ms --out "$work/sweep" >"$work/sweep.log" 2>&1 ||
  { tail -n 30 "$work/sweep.log" >&2; exit 1; }
scripts/screenshot-report.sh "$work/sweep" "$work/sweep.png"
echo "e2e/report: sweep.html rendered offline with its plots ($(stat -c %s "$work/sweep.png") bytes of screenshot)"
# Closed loop against a simulator of batch limit 8: sweep.html's two-axis plot (TTFT and throughput
# against concurrency, the SLO line, the knee).
"$work/replay" sweep --concurrency 2,8,16 --all --limit 48 --slo ttft=300ms --sim-max-batch 8 --sim-step-base 4ms \
  --sim-prefill-per-token 2us --out "$work/csweep" >"$work/csweep.log" 2>&1 || { tail -n 30 "$work/csweep.log" >&2; exit 1; }
grep -q '"knee": 8,' "$work/csweep/sweep.json" || { echo "e2e/report: the concurrency sweep's knee is not 8" >&2; cat "$work/csweep.log" >&2; exit 1; }
grep -q '(right)</text>' "$work/csweep/sweep.html" || { echo "e2e/report: sweep.html has no two-axis plot" >&2; exit 1; }
scripts/screenshot-report.sh "$work/csweep" "$work/csweep.png"
echo "e2e/report: concurrency sweep.html rendered offline with its two-axis plot ($(stat -c %s "$work/csweep.png") bytes of screenshot)"
# The cache study's page: its verdict, LRU curve (capacity marked, measured hit rate a point)
# and paired TTFT plot must all be on the first screen (1280x800), measured after layout.
"$work/replay" gen --shape chat --duration 4m --seed 7 --out "$work/chat.jsonl" >/dev/null
"$work/replay" cache-study --trace "$work/chat.jsonl" --limit 200 --speed 4 --sim-kv-blocks 4096 --slo ttft=500ms \
  --max-lateness 0 --out "$work/study" >"$work/study.log" 2>&1 || { tail -n 30 "$work/study.log" >&2; exit 1; }
e2e/report/firstscreen.sh "$work/study/cache_study.html" verdict curve paired-ttft
grep -q 'engine capacity' "$work/study/cache_study.html" && grep -q 'measured ' "$work/study/cache_study.html" ||
  { echo "e2e/report: cache_study.html's curve lacks the capacity mark or the measured point" >&2; exit 1; }
echo "e2e/report: cache_study.html rendered offline with the verdict, curve and paired TTFT on the first screen"
# A paired run: two simulators in their own processes, B with four times the prefill time.
free_port() {
  local p
  for p in $(seq "$1" $(($1 + 99))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  return 1
}
pa=$(free_port 18600)
pb=$(free_port $((pa + 1)))
"$work/replay" sim --listen "127.0.0.1:$pa" >"$work/sim-a.log" 2>&1 &
sims+=($!)
"$work/replay" sim --listen "127.0.0.1:$pb" --prefill-per-token 80us >"$work/sim-b.log" 2>&1 &
sims+=($!)
for port in "$pa" "$pb"; do
  for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break; sleep 0.1; done
done
"$work/replay" run --limit 120 --speed 8 --endpoint "a=http://127.0.0.1:$pa/v1" --endpoint "b=http://127.0.0.1:$pb/v1" \
  --model replay-sim --tokenizer samples/tokenizer/mistral --checks basic --max-lateness 0 \
  --require 'ttft.p95<=1m,checks' --out "$work/paired" >"$work/paired.log" 2>&1 ||
  { tail -n 30 "$work/paired.log" >&2; exit 1; }
page=$work/paired/compare.html
for want in 'id="verdict-b"' '<table class="checks">' 'id="delta-ttft-b"><svg' 'id="delta-e2e-b"><svg' 'Limits (--require)'; do
  grep -qF "$want" "$page" || { echo "e2e/report: compare.html lacks $want" >&2; exit 1; }
done
if grep -o 'src="http[^"]*"\|href="http[^"]*"\|url(http[^)]*)' "$page" | grep -q .; then
  echo "e2e/report: compare.html references the network" >&2; exit 1
fi
chrome=$(command -v chromium || command -v chromium-browser)
profile=$work/chrome
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --screenshot="$work/compare.png" --window-size=1280,1000 \
  "file://$page" >/dev/null 2>&1 || true
size=$(stat -c %s "$work/compare.png" 2>/dev/null || echo 0)
# The first screen alone (1280x1000): a blank one compresses to a few kB, its plots and tables to well over 100 kB.
if ((size < 100000)); then
  echo "e2e/report: compare.html's first screen is only $size bytes of screenshot: it did not render" >&2; exit 1
fi
echo "e2e/report: compare.html rendered offline, verdict, limits, checks and both difference plots on its first screen ($size bytes of screenshot): $(grep -m1 '^verdict:' "$work/paired.log")"
