#!/usr/bin/env bash
# setup.sh: from a bare machine (root, Debian bookworm), everything e2e.sh needs to run
# llama.cpp's own server, llama-server, on this CPU:
#   1. debootstrap (apt-get, when missing), and jq and curl for e2e.sh;
#   2. a Debian sid root holding Debian's llama.cpp-tools (bookworm's libc is too old for it; it
#      runs under chroot), made with `debootstrap --variant=minbase --include=llama.cpp-tools sid`
#      from the mirror this host's apt sources name, cached at $REPLAY_LLAMACPP_CACHE/root
#      (default <repo>/.cache/llamacpp) and reused when present; built in root.tmp and moved
#      into place, so a killed setup leaves nothing half-made;
#   3. the model inside the root: mkmodel (e2e/ollama/mkmodel) writes a random-weight F16 Llama
#      GGUF with Mistral-7B's real 32k tokenizer, an end-of-sequence token the model can reach
#      (--eos reachable: an unforced answer ends early, so forcing is measured) and the chat
#      template replay renders for that tokenizer (chattemplate), which llama-server renders chat
#      with; the root's llama-quantize turns it into Q8_0. Beside it mkmodel's default model
#      (its </s> unreachable, every answer runs to max_tokens; the weights e2e/ollama serves),
#      for a schedule sent to Ollama too, which cannot force a length.
#   4. the vision models, one folder per projector type under models/vision/ inside the root
#      (mlp: LLaVA-1.5's, into replay-PRESET-chat, the default model's weights with replay's
#      chat template; qwen2vl_merger: Qwen2-VL's, into a qwen2vl text
#      model with a small byte-level vocabulary of its own, mkmodel --arch qwen2vl):
#      model.gguf (the text model, as wide as the projector's output), mmproj.gguf (mkmodel
#      --mmproj: a tiny random-weight vision tower and projector, for llama-server --mmproj)
#      and the tokenizer folder replay is given: tokenizer.json, tokenizer_config.json, and the config.json and
#      preprocessor_config.json of that family, with the GGUF's values (replay's image rule).
#   5. two LoRA adapters for the e2e model, models/lora/<preset>/support.gguf and sql.gguf inside
#      the root (mkmodel --lora, seeds 1 and 2: random A and B on every layer's attn_q and
#      attn_v, rank 8), for llama-server --lora (slice lora); an adapter's name is its file
#      name without .gguf, as replay matches a --model-map adapter to /lora-adapters.
# Measured on 2 cores: cold 30 s (debootstrap 28 s, the model 1.4 s), warm 0.01 s (file tests).
# It prints shell assignments on its last four lines: LLAMA_ROOT=... (the root), FIXED_GGUF=...
# (the default model), MODEL_GGUF=... (the e2e model) and VISION_MODELS=... (the folder of the
# vision models' folders), the models as paths inside the root, as llama-server -m takes them.
# Usage: e2e/llamacpp/setup.sh [--preset small|large]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${REPLAY_LLAMACPP_CACHE:-$root/.cache/llamacpp}
preset=small
while (($#)); do
  case $1 in
  --preset) preset=$2; shift 2 ;;
  -h | --help) sed -n '2,32p' "$0"; exit 0 ;;
  *) echo "setup.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

log() { echo "setup: $*" >&2; }
[[ $(id -u) == 0 ]] || { echo "setup.sh: debootstrap and chroot need root" >&2; exit 1; }

# 1. apt packages, only those missing.
need=()
command -v debootstrap >/dev/null || [[ -x /usr/sbin/debootstrap ]] || need+=(debootstrap)
command -v jq >/dev/null || need+=(jq)
command -v curl >/dev/null || need+=(curl)
if ((${#need[@]})); then
  log "apt-get install ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi

# mirror is the Debian archive this host's apt sources name (deb822 .sources or a one-line
# sources.list), its security archive left out: sid has none.
mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($i !~ /security/) print $i; break } }' "$f"
  done
}

# 2. The sid root with llama.cpp-tools, made once.
llroot=$cache/root
if [[ ! -x $llroot/usr/bin/llama-server ]]; then
  url=$(mirror | head -n 1)
  [[ -n $url ]] || { echo "setup.sh: no Debian mirror in /etc/apt/sources.list{,.d/}" >&2; exit 1; }
  mkdir -p "$cache"
  rm -rf "$llroot.tmp"
  log "debootstrap sid with llama.cpp-tools into $llroot (about 20 s)"
  start=$(date +%s)
  PATH=$PATH:/usr/sbin debootstrap --variant=minbase --include=llama.cpp-tools sid "$llroot.tmp" "$url" \
    >"$cache/debootstrap.log" 2>&1 || { tail -n 20 "$cache/debootstrap.log" >&2; exit 1; }
  rm -rf "$llroot"
  mv "$llroot.tmp" "$llroot"
  log "made the root in $(($(date +%s) - start)) s: $(chroot "$llroot" llama-server --version 2>&1 | grep -m1 version)"
fi

# 3. The models, written once per preset, inside the root: NAME-f16.gguf by mkmodel (with the
# flags given), NAME-q8.gguf from it by the root's llama-quantize.
model() { # model NAME [mkmodel flags...]
  local name=$1 tmp
  shift
  [[ -s $llroot/models/$name-q8.gguf ]] && return
  mkdir -p "$llroot/models"
  tmp=$llroot/models/$name.tmp
  rm -rf "$tmp"
  mkdir -p "$tmp"
  log "writing $llroot/models/$name-q8.gguf"
  (cd "$here" && go run ./chattemplate "$root/samples/tokenizer/mistral") >"$tmp/chat_template.jinja"
  (cd "$root/e2e/ollama" && go run ./mkmodel --tokenizer "$root/samples/tokenizer/mistral/tokenizer.json" \
    --preset "$preset" "${@//@TEMPLATE@/$tmp/chat_template.jinja}" --out "$tmp/f16.gguf")
  chroot "$llroot" llama-quantize "/models/$name.tmp/f16.gguf" "/models/$name.tmp/q8.gguf" q8_0 \
    >"$tmp/quantize.log" 2>&1 || { tail -n 20 "$tmp/quantize.log" >&2; exit 1; }
  mv "$tmp/f16.gguf" "$llroot/models/$name-f16.gguf"
  mv "$tmp/q8.gguf" "$llroot/models/$name-q8.gguf"
  rm -rf "$tmp"
}
# The e2e model: </s> reachable, replay's chat template.
model "replay-$preset-eos-chat" --eos reachable --chat-template @TEMPLATE@
# mkmodel's default (the very weights e2e/ollama serves, every answer to max_tokens), for the
# slices that send one schedule to Ollama and llama-server: Ollama cannot force a length.
model "replay-$preset"
# The same weights with replay's chat template, LLaVA's text model: llama.cpp drops the forcing
# fields on its Messages API, so an answer there runs to its cap only if </s> is unreachable.
model "replay-$preset-chat" --chat-template @TEMPLATE@

# 4. The vision models, one folder per projector type, made once: written in TYPE.tmp and moved
# into place.
# made-by names how the folders are made; a folder made otherwise (by an older setup.sh) is
# made again.
made_by="setup.sh vision 2: mlp over replay-$preset-chat"
vision() { # vision TYPE llama|qwen2vl: the folder models/vision/TYPE
  local type=$1 text=$2 dir=$llroot/models/vision/$1 tmp
  [[ -s $dir/mmproj.gguf && -s $dir/model.gguf && -s $dir/preprocessor_config.json && -s $dir/made-by ]] &&
    [[ $(<"$dir/made-by") == "$made_by" ]] && return
  tmp=$dir.tmp
  rm -rf "$tmp"
  mkdir -p "$tmp"
  log "writing $dir"
  case $text in
  llama) # Mistral's tokenizer, replay's chat template, </s> unreachable; hard-linked
    ln "$llroot/models/replay-$preset-chat-q8.gguf" "$tmp/model.gguf" 2>/dev/null ||
      cp "$llroot/models/replay-$preset-chat-q8.gguf" "$tmp/model.gguf"
    cp "$root/samples/tokenizer/mistral/tokenizer.json" "$root/samples/tokenizer/mistral/tokenizer_config.json" "$tmp/" ;;
  qwen2vl) # a Qwen2-VL text model with a byte-level vocabulary of its own, its tokenizer folder beside
    (cd "$root/e2e/ollama" && go run ./mkmodel --arch qwen2vl --tokenizer "$root/samples/tokenizer/mistral/tokenizer.json" \
      --preset "$preset" --out "$tmp/model.gguf") ;;
  esac
  (cd "$root/e2e/ollama" && go run ./mkmodel --mmproj "$type" --preset "$preset" --out "$tmp/mmproj.gguf")
  echo "$made_by" >"$tmp/made-by"
  rm -rf "$dir"
  mv "$tmp" "$dir"
}
vision mlp llama            # LLaVA-1.5: 576 tokens an image
vision qwen2vl_merger qwen2vl # Qwen2-VL: tokens by the image's size

# 5. The LoRA adapters, made once per preset: written in lora/PRESET.tmp and moved into place.
adapters() {
  local dir=$llroot/models/lora/$preset tmp
  [[ -s $dir/support.gguf && -s $dir/sql.gguf ]] && return
  tmp=$dir.tmp
  rm -rf "$tmp"
  mkdir -p "$tmp"
  log "writing $dir"
  (cd "$root/e2e/ollama" && go run ./mkmodel --lora --preset "$preset" --seed 1 --out "$tmp/support.gguf" &&
    go run ./mkmodel --lora --preset "$preset" --seed 2 --out "$tmp/sql.gguf")
  rm -rf "$dir"
  mv "$tmp" "$dir"
}
adapters

echo "LLAMA_ROOT=$llroot"
echo "FIXED_GGUF=/models/replay-$preset-q8.gguf"
echo "MODEL_GGUF=/models/replay-$preset-eos-chat-q8.gguf"
echo "VISION_MODELS=/models/vision"
