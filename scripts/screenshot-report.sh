#!/usr/bin/env bash
# Renders DIR/report.html offline in headless Chromium (Debian's `chromium`) and checks the
# screenshot is not trivially empty. Used by the end-to-end script, not by unit tests.
# Usage: scripts/screenshot-report.sh DIR [OUT.png]
set -euo pipefail
dir=${1:?usage: scripts/screenshot-report.sh DIR [OUT.png]}
out=${2:-$dir/report.png}
html=$(cd "$dir" && pwd)/report.html
[ -s "$html" ] || { echo "screenshot-report: $html missing or empty" >&2; exit 1; }
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "screenshot-report: no chromium; apt-get install -y chromium" >&2; exit 1; }
# The page must not need the network: count any http(s) reference outside SVG namespaces.
if grep -o 'src="http[^"]*"\|href="http[^"]*"\|url(http[^)]*)' "$html" | grep -q .; then
  echo "screenshot-report: $html references the network" >&2; exit 1
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$out"
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --screenshot="$out" --window-size=1280,4600 \
  "file://$html" >/dev/null 2>&1 || true
[ -s "$out" ] || { echo "screenshot-report: chromium wrote no screenshot" >&2; exit 1; }
size=$(stat -c %s "$out")
# A blank 1280x4600 page compresses to a few kB; seven plots and the tables are well over 150 kB.
if [ "$size" -lt 150000 ]; then
  echo "screenshot-report: $out is only $size bytes: the page did not render its plots" >&2; exit 1
fi
# Every plot is inline SVG.
svgs=$(grep -o '<svg' "$html" | wc -l)
if [ "$svgs" -lt 7 ]; then
  echo "screenshot-report: $html has $svgs plots, want 7" >&2; exit 1
fi
echo "screenshot-report: $out $size bytes, $svgs plots"
