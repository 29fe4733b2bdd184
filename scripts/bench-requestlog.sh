#!/usr/bin/env bash
# Request-log ingest throughput against two tokenizers, on the same texts, in one command.
# Runs BenchmarkIngestVsTokenizer (requestlog/bench_test.go) on one core: the first 2,000 requests
# of the generated log read end to end (parse, render the Qwen3 chat template, tokenize, hash,
# sessions), alternating with our tokenizer encoding exactly the texts the reader must (rendered
# chat prompts, completions prompts, responses without usage), both timed in CPU-seconds. The
# benchmark also writes those texts out, and the Rust reference (Hugging Face tokenizers 0.23.2
# through its Node binding, RAYON_NUM_THREADS=1, one encodeBatch call per kind so no per-call
# Node overhead is charged to it) encodes them too. Prints requests per CPU-second of each and
# the reader's share of each tokenizer's rate (the goal: at least 0.80).
# usage: scripts/bench-requestlog.sh      env: RUNS (default 6, iterations of the Go benchmark
#   and timed runs of the reference), GC (default "default"; "stream" for replay ingest's
#   collector setting)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
runs=${RUNS:-6}
gc=${GC:-default}
tok=${REPLAY_TOKENIZER_CACHE:-$here/.cache/tokenizers}/qwen3/tokenizer.json
[ -s "$tok" ] || { echo "$tok missing: run scripts/fetch-tokenizers.sh" >&2; exit 1; }
[ -d "$here/.cache/tokref/node_modules/tokenizers" ] || { echo "reference tokenizer missing: run scripts/tokref-setup.sh" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $runs iterations"
out=$(cd requestlog && REPLAY_BENCH_TEXTS=$tmp/texts.jsonl go test -run '^$' \
  -bench "^BenchmarkIngestVsTokenizer/gc=$gc\$" -benchtime "${runs}x" -cpu 1 -count 1 .)
line=$(grep '^BenchmarkIngestVsTokenizer' <<<"$out") || { echo "$out" >&2; exit 1; }
metric() { awk -v u="$1" '{ for (i = 1; i < NF; i++) if ($(i+1) == u) print $i }' <<<"$line"; }
cat >"$tmp/ref.js" <<'JS'
process.env.RAYON_NUM_THREADS = '1';
process.env.TOKENIZERS_PARALLELISM = 'false';
const fs = require('fs');
const [modDir, tokPath, file, runs] = process.argv.slice(2);
const { Tokenizer } = require(modDir);
const tok = Tokenizer.fromFile(tokPath);
const plain = [], special = [];
let lines = 0;
for (const l of fs.readFileSync(file, 'utf8').split('\n')) {
  if (!l) continue;
  const v = JSON.parse(l);
  if (v.lines !== undefined) { lines = v.lines; continue; }
  (v.special ? special : plain).push(v.text);
}
const pass = async () => {
  await tok.encodeBatch(plain, { addSpecialTokens: false });
  await tok.encodeBatch(special, { addSpecialTokens: true });
};
(async () => {
  await pass(); // warm-up
  let cpu = Infinity;
  for (let i = 0; i < Number(runs); i++) {
    const c0 = process.cpuUsage();
    await pass();
    const c = process.cpuUsage(c0);
    cpu = Math.min(cpu, (c.user + c.system) / 1e6);
  }
  console.log((lines / cpu).toFixed(0));
})();
JS
rust=$(node "$tmp/ref.js" "$here/.cache/tokref/node_modules/tokenizers" "$tok" "$tmp/texts.jsonl" "$runs")
ingest=$(metric ingest-req/cpu-s) ours=$(metric tokenizer-req/cpu-s) median=$(metric median-ratio)
printf '%-44s %10s\n' "reader (ingest), requests per CPU-second" "$ingest" \
  "our tokenizer on the same texts" "$ours" \
  "Rust reference tokenizer on the same texts" "$rust"
awk -v i="$ingest" -v o="$ours" -v r="$rust" -v m="$median" 'BEGIN {
  printf "reader / our tokenizer: %.2f (median of the iterations %.2f)\n", i / o, m
  printf "reader / Rust reference tokenizer: %.2f\n", i / r }'
