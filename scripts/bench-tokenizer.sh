#!/usr/bin/env bash
# Tokenizer throughput, ours against the Rust reference, in one command.
# Builds the >= 2 MiB mixed text (scripts/tokref/mixedtext.sh: the golden corpus joined by "\n",
# repeated), then for each tokenizer (default: llama3 qwen3) encodes it single-threaded with
#   - the Rust reference (Hugging Face tokenizers 0.23.2 via its Node binding), and
#   - ours (go test -bench in synth/tokenizer, on the same file),
# at two granularities, the same for both:
#   whole: the whole file in one encode call;
#   lines: every line (without its "\n") encoded on its own; the reference gets all lines in one
#          encodeBatch call with RAYON_NUM_THREADS=1, so no per-call Node overhead is counted.
# add_special_tokens is off. Each figure is the best of the runs, in MB/s of wall-clock time and
# in MB per CPU-second (CPU time of the whole process: on a shared machine the second is the
# fairer one). Ours is also run on two goroutines ("parallel", lines split between them).
# usage: scripts/bench-tokenizer.sh [NAME...]      env: RUNS (default 3)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
cache=${REPLAY_TOKENIZER_CACHE:-$here/.cache/tokenizers}
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(llama3 qwen3)
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
text=$tmp/mixed.txt
scripts/tokref/mixedtext.sh "$text"
cat >"$tmp/ref.js" <<'JS'
process.env.RAYON_NUM_THREADS = '1';
process.env.TOKENIZERS_PARALLELISM = 'false';
const fs = require('fs');
const [modDir, tokPath, file, runs] = process.argv.slice(2);
const { Tokenizer } = require(modDir);
const tok = Tokenizer.fromFile(tokPath);
const text = fs.readFileSync(file, 'utf8');
const lines = text.split('\n');
const bytes = Buffer.byteLength(text, 'utf8');
async function measure(fn) {
  await fn(); // warm-up
  let wall = Infinity, cpu = Infinity;
  for (let i = 0; i < Number(runs); i++) {
    const c0 = process.cpuUsage(), t0 = process.hrtime.bigint();
    await fn();
    wall = Math.min(wall, Number(process.hrtime.bigint() - t0) / 1e9);
    const c = process.cpuUsage(c0);
    cpu = Math.min(cpu, (c.user + c.system) / 1e6);
  }
  return { mbps: bytes / wall / 1e6, cpu_mbps: bytes / cpu / 1e6 };
}
(async () => {
  const whole = await measure(() => tok.encode(text, null, { addSpecialTokens: false }));
  const byLine = await measure(() => tok.encodeBatch(lines, { addSpecialTokens: false }));
  console.log(JSON.stringify({ whole, lines: byLine }));
})();
JS
echo "mixed text: $(wc -c <"$text") bytes, $(wc -l <"$text") newlines; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); best of $runs runs"
printf '%-8s %-8s | %9s %9s %7s | %12s %12s %7s\n' tokenizer mode "ours MB/s" "Rust MB/s" ratio "ours MB/cpu-s" "Rust MB/cpu-s" ratio
for name in "${names[@]}"; do
  tok=$cache/$name/tokenizer.json
  [ -s "$tok" ] || { echo "$tok missing: run scripts/fetch-tokenizers.sh" >&2; exit 1; }
  ref=$(node "$tmp/ref.js" "$here/.cache/tokref/node_modules/tokenizers" "$tok" "$text" "$runs")
  ours=$(cd synth/tokenizer && REPLAY_BENCH_TEXT=$text go test -run '^$' \
    -bench "^BenchmarkEncode(Lines|Parallel)?/$name\$" -benchtime "${runs}x" -count 1 .)
  metric() { # benchmark name, unit -> value from go test output
    awk -v b="$1" -v u="$2" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 1; i < NF; i++) if ($(i+1) == u) print $i }' <<<"$ours"
  }
  refv() { node -e 'const r = JSON.parse(process.argv[1]); console.log(r[process.argv[2]][process.argv[3]].toFixed(3))' "$ref" "$1" "$2"; }
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
  for mode in whole lines; do
    bench=BenchmarkEncode/$name
    [ $mode = lines ] && bench=BenchmarkEncodeLines/$name
    ow=$(metric "$bench" MB/s) oc=$(metric "$bench" MB/cpu-s) rw=$(refv $mode mbps) rc=$(refv $mode cpu_mbps)
    printf '%-8s %-8s | %9s %9s %7s | %12s %12s %7s\n' "$name" $mode "$ow" "$rw" "$(ratio "$ow" "$rw")" "$oc" "$rc" "$(ratio "$oc" "$rc")"
  done
  printf '%-8s %-8s | %9s %9s %7s | %12s %12s %7s\n' "$name" parallel "$(metric "BenchmarkEncodeParallel/$name" MB/s)" - - \
    "$(metric "BenchmarkEncodeParallel/$name" MB/cpu-s)" - -
done
