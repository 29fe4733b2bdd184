#!/usr/bin/env bash
# Re-check `replay ingest --format openai-log` with the reference tokenizer (Hugging Face's Rust
# tokenizers through its npm binding, installed by scripts/tokref-setup.sh) on the seeded
# generated request log: every request's prompt, as the server saw it (chat template applied,
# kept with --keep-text), is encoded as the server does (chat: the rendered text as is, special
# tokens recognized; completions: with the post-processor's special tokens) and its count
# compared with our input_length.
#
# usage: scripts/check-requestlog.sh [--tokenizer DIR] [-n REQUESTS] [--seed N] [--counts-out FILE]
#   defaults: the cached qwen3 tokenizer, 10000 requests, seed 1. --counts-out writes
#   "line reference_count" per request: the golden counts requestlog's tests compare with
#   (requestlog/testdata/golden/qwen3_genlog.refcounts).
# Prints one summary line and exits 1 when any prompt is off.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tokref=${TOKREF_DIR:-$here/.cache/tokref}
tok=${REPLAY_TOKENIZER_CACHE:-$here/.cache/tokenizers}/qwen3 n=10000 seed=1 counts=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tokenizer) tok=$2; shift 2 ;;
    -n) n=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --counts-out) counts=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ ! -d "$tokref/node_modules/tokenizers" ]; then
  echo "check-requestlog: reference tokenizer missing at $tokref: run scripts/tokref-setup.sh" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here"
go run ./internal/genlog/cmd/genlog -n "$n" -seed "$seed" > "$tmp/log.jsonl"
go build -o "$tmp/replay" ./cmd/replay
start=$(date +%s.%N)
"$tmp/replay" ingest --trace "$tmp/log.jsonl" --format openai-log --tokenizer "$tok" --keep-text \
  --export mooncake --out "$tmp/out.jsonl" >&2
end=$(date +%s.%N)
echo "ours: $(wc -c < "$tmp/log.jsonl") bytes of log in $(echo "$end - $start" | bc) s" >&2
tokjson=$tok
[ -d "$tokjson" ] && tokjson=$tokjson/tokenizer.json
NODE_PATH=$tokref/node_modules RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false \
node - "$tokjson" "$tmp/log.jsonl" "$tmp/out.jsonl" "$counts" <<'JS'
const fs = require('fs');
const readline = require('readline');
const { Tokenizer } = require('tokenizers');
const [tokPath, logPath, outPath, countsPath] = process.argv.slice(2);
const tok = Tokenizer.fromFile(tokPath);
(async () => {
  const outs = fs.readFileSync(outPath, 'utf8').split('\n').filter(l => l.trim());
  let n = 0, exact = 0, lineNo = 0;
  const counts = [];
  const rl = readline.createInterface({ input: fs.createReadStream(logPath), crlfDelay: Infinity });
  for await (const line of rl) {
    lineNo++;
    if (!line.trim()) continue;
    let req = JSON.parse(line).request;
    if (typeof req === 'string') req = JSON.parse(req);
    const o = JSON.parse(outs[n]);
    const chat = Array.isArray(req.messages);
    const enc = await tok.encode(o.prompt, null, { addSpecialTokens: !chat });
    const got = enc.getIds().length;
    n++;
    counts.push(`${lineNo} ${got}`);
    if (got === o.input_length) exact++;
    else console.error(`log line ${lineNo}: reference count ${got}, input_length ${o.input_length}`);
  }
  if (n !== outs.length) { console.error(`${n} log lines but ${outs.length} output lines`); process.exit(2); }
  if (countsPath) fs.writeFileSync(countsPath, counts.join('\n') + (counts.length ? '\n' : ''));
  const pct = n ? (100 * exact / n).toFixed(1) : '0.0';
  console.log(`checked ${n} requests: ${exact} prompt counts equal the reference (${pct}%), ${n - exact} off`);
  process.exit(exact === n ? 0 : 1);
})();
JS
