#!/usr/bin/env bash
# setup.sh: from a bare machine, everything e2e.sh needs to run a real engine on this CPU:
#   1. the apt packages llama.cpp's cgo build includes (nlohmann-json3-dev, libstb-dev), and jq
#      and curl for e2e.sh;
#   2. Ollama built from the Go module proxy with cgo (llama.cpp inside), cached at
#      $REPLAY_OLLAMA_CACHE/<version>/ollama (default <repo>/.cache/ollama) and reused when present
#      (cold: 5-7 min on 2 cores with -march=native; warm: a file test);
#   3. a random-weight Llama GGUF carrying Mistral-7B's real 32k tokenizer, written by mkmodel
#      (a Go program of ours using Ollama's GGUF writer) and cached next to the binary.
# It prints the binary's and the model's paths as shell assignments (OLLAMA_BIN=..., MODEL_GGUF=...)
# on its last two lines. Usage: e2e/ollama/setup.sh [--preset small|large]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=v0.17.4
malgo=v0.11.24 # carries miniaudio.h, which llama.cpp's mtmd helper includes
cache=${REPLAY_OLLAMA_CACHE:-$root/.cache/ollama}
preset=small
while (($#)); do
  case $1 in
  --preset) preset=$2; shift 2 ;;
  -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "setup.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

log() { echo "setup: $*" >&2; }

# 1. apt packages, only those missing.
need=()
[[ -f /usr/include/nlohmann/json.hpp ]] || need+=(nlohmann-json3-dev)
[[ -f /usr/include/stb/stb_image.h ]] || need+=(libstb-dev)
command -v jq >/dev/null || need+=(jq)
command -v curl >/dev/null || need+=(curl)
command -v g++ >/dev/null || need+=(g++)
if ((${#need[@]})); then
  sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  log "apt-get install ${need[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need[@]}" >&2
fi

# 2. Ollama, built once per version.
# ggml's cgo files ask for no instruction set beyond the baseline, so without -march=native its
# matrix kernels run without AVX2/FMA: prefill crawled at 50-100 tokens/s. The binary is built
# on, and for, the machine that runs it. AMX stays off: on a CPU that has it, -march=native makes
# ggml's CPU backend reference its AMX buffer type, whose sources Ollama's cgo build leaves out,
# and the link fails ("undefined reference to ggml_backend_amx_buffer_type").
flavor=native
march="-O3 -march=native -mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
bin=$cache/$version-$flavor/ollama
if [[ ! -x $bin ]]; then
  cd "$here"
  log "building ollama $version with cgo into $bin (5-7 minutes cold on 2 cores)"
  start=$(date +%s)
  malgodir=$(go mod download -json "github.com/gen2brain/malgo@$malgo" | jq -r .Dir)
  inc=$cache/$version-$flavor/include
  mkdir -p "$inc/miniaudio"
  cp "$malgodir/miniaudio.h" "$inc/miniaudio/miniaudio.h"
  CGO_ENABLED=1 CGO_CPPFLAGS="-I$inc" CGO_CFLAGS="$march" CGO_CXXFLAGS="$march" go build -trimpath \
    -ldflags "-X github.com/ollama/ollama/version.Version=${version#v}" -o "$bin.tmp" github.com/ollama/ollama
  mv "$bin.tmp" "$bin"
  log "built ollama in $(($(date +%s) - start)) s"
fi

# 3. The model, written once per preset.
gguf=$cache/models/replay-$preset.gguf
if [[ ! -s $gguf ]]; then
  cd "$here"
  mkdir -p "$cache/models"
  log "writing $gguf"
  go run ./mkmodel --tokenizer "$root/samples/tokenizer/mistral/tokenizer.json" \
    --preset "$preset" --out "$gguf.tmp"
  mv "$gguf.tmp" "$gguf"
fi

echo "OLLAMA_BIN=$bin"
echo "MODEL_GGUF=$gguf"
