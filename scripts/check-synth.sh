#!/usr/bin/env bash
# Re-check a `replay synth` output file with the reference tokenizer (Hugging Face's Rust
# tokenizers through its npm binding, installed by scripts/tokref-setup.sh): every line's
# `prompt` is encoded as the server will (completions: with the post-processor's special tokens;
# chat: the rendered template as is, special tokens recognized) and its count compared with
# `prompt_tokens`, its ids with `prompt_ids`.
#
# usage: scripts/check-synth.sh --tokenizer TOKENIZER.json [--counts-out FILE] SYNTH.jsonl
#   --counts-out writes "index reference_count" per line (the golden counts synth tests check).
# Prints one summary line and exits 1 when any prompt is off.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tokref=${TOKREF_DIR:-$here/.cache/tokref}
tok="" counts="" file=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tokenizer) tok=$2; shift 2 ;;
    --counts-out) counts=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) file=$1; shift ;;
  esac
done
if [ -z "$tok" ] || [ -z "$file" ]; then
  echo "usage: $0 --tokenizer TOKENIZER.json [--counts-out FILE] SYNTH.jsonl" >&2
  exit 2
fi
[ -d "$tok" ] && tok=$tok/tokenizer.json
if [ ! -d "$tokref/node_modules/tokenizers" ]; then
  echo "check-synth: reference tokenizer missing at $tokref: run scripts/tokref-setup.sh" >&2
  exit 2
fi
NODE_PATH=$tokref/node_modules RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false \
node - "$tok" "$file" "$counts" <<'JS'
const fs = require('fs');
const readline = require('readline');
const { Tokenizer } = require('tokenizers');
const [tokPath, file, countsPath] = process.argv.slice(2);
const tok = Tokenizer.fromFile(tokPath);
(async () => {
  let n = 0, exact = 0, idsSame = 0, lineNo = 0;
  const counts = [];
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    lineNo++;
    if (!line.trim()) continue;
    let r;
    try { r = JSON.parse(line); } catch (e) { console.error(`${file}:${lineNo}: not JSON: ${e.message}`); process.exit(2); }
    const special = r.api !== 'chat';
    const enc = await tok.encode(r.prompt, null, { addSpecialTokens: special });
    const ids = Array.from(enc.getIds());
    n++;
    counts.push(`${r.index} ${ids.length}`);
    if (ids.length === r.prompt_tokens) exact++;
    else console.error(`${file}:${lineNo}: index ${r.index}: reference count ${ids.length}, prompt_tokens ${r.prompt_tokens}`);
    if (ids.length === r.prompt_ids.length && ids.every((v, i) => v === r.prompt_ids[i])) idsSame++;
  }
  if (countsPath) fs.writeFileSync(countsPath, counts.join('\n') + (counts.length ? '\n' : ''));
  const pct = n ? (100 * exact / n).toFixed(1) : '0.0';
  console.log(`checked ${n} prompts: ${exact} exact (${pct}%), ${n - exact} off; ids identical to prompt_ids: ${idsSame}`);
  process.exit(exact === n ? 0 : 1);
})();
JS
