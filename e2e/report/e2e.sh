#!/usr/bin/env bash
# e2e/report/e2e.sh: the reports render offline in a real browser. Replays a slice of the
# default generated workload against the built-in simulator, then opens its report.html in headless
# Chromium (Debian's chromium, installed when missing) with the network unused, and checks the
# screenshot shows the page's plots (scripts/screenshot-report.sh); then the same for a short
# sweep's sweep.html. Exit 0 only when both do.
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
trap 'rm -rf "$work"' EXIT
go build -o "$work/replay" ./cmd/replay
"$work/replay" run --speed 8 --limit 300 --slo ttft=500ms,itl=60ms --out "$work/run" >"$work/run.log" 2>&1 ||
  { tail -n 30 "$work/run.log" >&2; exit 1; }
scripts/screenshot-report.sh "$work/run" "$work/report.png"
echo "e2e/report: report.html rendered offline with its plots ($(stat -c %s "$work/report.png") bytes of screenshot)"
"$work/replay" sweep --speeds 4,16 --limit 150 --slo ttft=500ms --out "$work/sweep" >"$work/sweep.log" 2>&1 ||
  { tail -n 30 "$work/sweep.log" >&2; exit 1; }
scripts/screenshot-report.sh "$work/sweep" "$work/sweep.png"
echo "e2e/report: sweep.html rendered offline with its plots ($(stat -c %s "$work/sweep.png") bytes of screenshot)"
