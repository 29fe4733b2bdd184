#!/usr/bin/env bash
# Regenerate the tokenizer golden data: the corpus (synth/tokenizer/testdata/corpus.jsonl, from
# the seeded generator in testdata/gencorpus) and, for each cached tokenizer, the reference ids
# without and with special tokens and the reference decode of the former:
#   synth/tokenizer/testdata/golden/<name>.jsonl.gz          ids, add_special_tokens=false
#   synth/tokenizer/testdata/golden/<name>.special.jsonl.gz  ids, add_special_tokens=true
#   synth/tokenizer/testdata/golden/<name>.decode.jsonl.gz   decode(ids, skip_special_tokens=false)
# and, not committed (a debugging aid for pre-tokenizer regexes, see scripts/tokref/pretok.js):
#   .cache/tokref/pretok/<name>.pretok.jsonl.gz             pre_tokenizer(normalizer(text)) strings
# One line per corpus line. Output is deterministic: running it twice gives identical bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
export REPLAY_TOKENIZER_CACHE=${REPLAY_TOKENIZER_CACHE:-$PWD/.cache/tokenizers}
export RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false
scripts/fetch-tokenizers.sh >/dev/null
tokref=$(scripts/tokref-setup.sh)
td=synth/tokenizer/testdata
go run $td/gencorpus/main.go -out $td/corpus.jsonl
mkdir -p $td/golden
names=(llama3 llama3_1 qwen3 deepseek_v3 gptoss gpt4o llama2 gemma3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lines=$(wc -l < $td/corpus.jsonl)
for name in "${names[@]}"; do
  tj=$REPLAY_TOKENIZER_CACHE/$name/tokenizer.json
  node "$tokref/encode.js" "$tj" < $td/corpus.jsonl > "$tmp/$name.jsonl"
  node "$tokref/encode.js" "$tj" --special < $td/corpus.jsonl > "$tmp/$name.special.jsonl"
  TOKREF_DIR=$tokref node scripts/tokref/decode.js "$tj" < "$tmp/$name.jsonl" > "$tmp/$name.decode.jsonl"
  TOKREF_DIR=$tokref node scripts/tokref/pretok.js "$tj" < $td/corpus.jsonl > "$tmp/$name.pretok.jsonl"
  mkdir -p "$tokref/pretok"
  gzip -9 -n -c "$tmp/$name.pretok.jsonl" > "$tokref/pretok/$name.pretok.jsonl.gz"
  for f in "$name.jsonl" "$name.special.jsonl" "$name.decode.jsonl"; do
    n=$(wc -l < "$tmp/$f")
    if [ "$n" != "$lines" ]; then echo "gen-goldens: $f has $n lines, corpus has $lines" >&2; exit 1; fi
    gzip -9 -n -c "$tmp/$f" > "$td/golden/$f.gz"
  done
  echo "$name: $(cat $td/golden/$name.jsonl.gz $td/golden/$name.special.jsonl.gz $td/golden/$name.decode.jsonl.gz | wc -c) bytes gzipped" >&2
done
