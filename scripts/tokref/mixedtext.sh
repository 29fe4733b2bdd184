#!/usr/bin/env bash
# Write a deterministic mixed text file for tokenizer benchmarks: the golden corpus texts
# (synth/tokenizer/testdata/corpus.jsonl, every language, code, JSON, emoji, whitespace...)
# joined by "\n", repeated (again "\n" between copies, none at the end) until the file holds at
# least MIN_BYTES (default 2 MiB): the same text as benchText in synth/tokenizer/bench_test.go.
# usage: scripts/tokref/mixedtext.sh OUT [MIN_BYTES]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: mixedtext.sh OUT [MIN_BYTES]}
min=${2:-2097152}
node -e '
const fs = require("fs");
const [corpus, out, min] = process.argv.slice(1);
const texts = fs.readFileSync(corpus, "utf8").split("\n").filter((l) => l).map((l) => JSON.parse(l).text);
const one = Buffer.from(texts.join("\n"), "utf8");
const parts = [];
let n = 0;
while (n < Number(min)) {
  if (n > 0) { parts.push(Buffer.from("\n")); n++; }
  parts.push(one);
  n += one.length;
}
fs.writeFileSync(out, Buffer.concat(parts));
' "$here/synth/tokenizer/testdata/corpus.jsonl" "$out" "$min"
