#!/usr/bin/env bash
# Install the reference tokenizer (Hugging Face's Rust `tokenizers` through its npm binding) into
# .cache/tokref: scripts/tokref/package.json and encode.js are copied there, then `npm install`. Re-running is cheap: an install whose files and tokenizers version already
# match is kept. Override the source with TOKREF_SRC and the target with TOKREF_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=${TOKREF_SRC:-$here/scripts/tokref}
dest=${TOKREF_DIR:-$here/.cache/tokref}
if [ ! -f "$src/package.json" ] || [ ! -f "$src/encode.js" ]; then
  echo "tokref-setup: $src/package.json or encode.js missing (set TOKREF_SRC)" >&2
  exit 1
fi
mkdir -p "$dest"
want=$(node -e 'console.log(require(process.argv[1]).dependencies.tokenizers)' "$src/package.json")
have=$(node -e 'try{console.log(require(process.argv[1]).version)}catch(e){console.log("none")}' \
  "$dest/node_modules/tokenizers/package.json")
if cmp -s "$src/package.json" "$dest/package.json" && cmp -s "$src/encode.js" "$dest/encode.js" && [ "$want" = "$have" ]; then
  echo "$dest"
  exit 0
fi
cp "$src/package.json" "$src/encode.js" "$dest/"
(cd "$dest" && npm install --no-audit --no-fund --silent >&2)
echo "$dest"
