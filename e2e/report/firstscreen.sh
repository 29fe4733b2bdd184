#!/usr/bin/env bash
# e2e/report/firstscreen.sh PAGE.html ID...: opens PAGE.html offline in headless Chromium at
# 1280x800 and checks that each element ID lies wholly on the first screen (its box inside the
# viewport without scrolling) and has a size. A copy of the page gets a script that measures
# the boxes after layout and writes them into the DOM, which Chromium dumps; the page itself
# carries no script. Exit 0 only when every ID is on the first screen.
set -euo pipefail
html=${1:?usage: firstscreen.sh PAGE.html ID...}
shift
(($# > 0)) || { echo "firstscreen: name at least one element id" >&2; exit 1; }
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "firstscreen: no chromium; apt-get install -y chromium" >&2; exit 1; }
# The page must not need the network (as scripts/screenshot-report.sh checks).
if grep -o 'src="http[^"]*"\|href="http[^"]*"\|url(http[^)]*)' "$html" | grep -q .; then
  echo "firstscreen: $html references the network" >&2; exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ids=$(printf '"%s",' "$@")
probe="<script>addEventListener('load',function(){var o=[];[${ids%,}].forEach(function(id){var e=document.getElementById(id);if(!e){o.push(id+' missing');return}var r=e.getBoundingClientRect();o.push(id+' '+Math.round(r.top)+' '+Math.round(r.bottom)+' '+Math.round(r.width)+' '+Math.round(r.height)+' '+innerHeight)});var p=document.createElement('pre');p.id='firstscreen-result';p.textContent=o.join(String.fromCharCode(10));document.body.appendChild(p)})</script>"
# Inserted before </body>: the measured page is the page, plus the probe after it.
sed "s#</body>#${probe//&/\\&}</body>#" "$html" >"$tmp/page.html"
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile" --window-size=1280,800 --virtual-time-budget=5000 \
  --dump-dom "file://$tmp/page.html" >"$tmp/dom.html" 2>/dev/null || true
# And a picture of that first screen, kept beside the page for a human to look at.
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile" --window-size=1280,800 --screenshot="${html%.html}.png" \
  "file://$html" >/dev/null 2>&1 || true
result=$(sed -n '/<pre id="firstscreen-result">/,/<\/pre>/p' "$tmp/dom.html" | sed 's/<[^>]*>//g')
[ -n "$result" ] || { echo "firstscreen: chromium ran no layout of $html" >&2; exit 1; }
bad=0
while read -r id top bottom width height view; do
  [ -n "$id" ] || continue
  if [ "$top" = missing ]; then
    echo "firstscreen: #$id is missing from $html" >&2; bad=1; continue
  fi
  if ((top < 0 || bottom > view || width < 50 || height < 20)); then
    echo "firstscreen: #$id is at $top-$bottom px (${width}x${height}), not on the first $view px" >&2; bad=1
  else
    echo "firstscreen: #$id at $top-$bottom px of $view (${width}x${height})"
  fi
done <<<"$result"
exit $bad
