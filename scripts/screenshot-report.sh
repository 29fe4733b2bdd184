#!/usr/bin/env bash
# Renders a run's report.html or a sweep's sweep.html offline in headless Chromium (Debian's
# `chromium`) and checks the screenshot is not trivially empty and the page has all its plots.
# Used by the end-to-end script, not by unit tests.
# Usage: scripts/screenshot-report.sh DIR|PAGE.html [OUT.png]
#   DIR: a run folder (report.html, 7 plots, each a line instead when it has nothing to draw) or a
#   sweep's --out folder (sweep.html, 4 plots).
set -euo pipefail
arg=${1:?usage: scripts/screenshot-report.sh DIR|PAGE.html [OUT.png]}
if [ -f "$arg" ]; then
  html=$(cd "$(dirname "$arg")" && pwd)/$(basename "$arg")
elif [ -f "$arg/report.html" ]; then
  html=$(cd "$arg" && pwd)/report.html
elif [ -f "$arg/sweep.html" ]; then
  html=$(cd "$arg" && pwd)/sweep.html
else
  echo "screenshot-report: no report.html or sweep.html in $arg" >&2; exit 1
fi
case $(basename "$html") in
  # A blank 1280-wide page compresses to a few kB; the plots and tables are well over these.
  sweep.html) want_svgs=4 height=2400 min_png=100000 ;;
  *)          want_svgs=7 height=4600 min_png=150000 ;;
esac
out=${2:-${html%.html}.png}
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
  --user-data-dir="$profile" --screenshot="$out" --window-size=1280,$height \
  "file://$html" >/dev/null 2>&1 || true
[ -s "$out" ] || { echo "screenshot-report: chromium wrote no screenshot" >&2; exit 1; }
size=$(stat -c %s "$out")
if [ "$size" -lt "$min_png" ]; then
  echo "screenshot-report: $out is only $size bytes: the page did not render its plots" >&2; exit 1
fi
# Every plot is inline SVG, or one line saying why it has nothing to draw (class nodata: a run
# without errors has no error chart).
svgs=$(grep -o '<svg' "$html" | wc -l)
nodata=$({ grep -o 'class="nodata"' "$html" || true; } | wc -l) # none is fine: grep's 1 must not end the script
if [ $((svgs + nodata)) -lt "$want_svgs" ]; then
  echo "screenshot-report: $html has $svgs plots and $nodata lines in place of one, want $want_svgs in all" >&2; exit 1
fi
echo "screenshot-report: $out $size bytes, $svgs plots, $nodata said empty"
