#!/usr/bin/env bash
# e2e.sh: replay generated workloads (replay gen) against a real engine (Ollama v0.17.4, llama.cpp inside)
# on 127.0.0.1 and check, from the server's own usage, that it saw exactly the prompt and output
# lengths replay targeted, and that its prefix cache lowers TTFT for requests sharing a prefix.
#
#   1. setup.sh (apt packages, cached Ollama build, cached random-weight GGUF with Mistral's
#      real 32k tokenizer);
#   2. `ollama serve` on a free 127.0.0.1 port, OLLAMA_NUM_PARALLEL=4, models in a temp dir;
#      two models from the same weights: replay-raw (TEMPLATE {{ .Prompt }}, for
#      /v1/completions, which Ollama templates too) and replay-chat (TEMPLATE
#      [INST] {{ .Prompt }} [/INST], the chat template replay renders for a tokenizer without one);
#   3. the slices in slices/, in name order, each a sourced file with its own checks:
#      10-lengths (exact prompt and output lengths through both APIs, engine detection),
#      20-prefix (the prefix cache lowers TTFT), 30-options (a request log's own options:
#      non-streamed, temperature, stop, JSON response_format; what Ollama does with each),
#      40-paired (one schedule to two models at once, the paired verdict), 50-cachestudy (the
#      prefix slice as `replay cache-study`) and 60-calibrate (the small model's single-request
#      curves); REPLAY_E2E_SLICES="lengths prefix" picks some.
# The server is stopped by its PID on exit. Exit status 0 only when every check passed.
# Env: REPLAY_OLLAMA_CACHE (build/model cache), REPLAY_E2E_PORT (default: a free port from 18400).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
t0=$(date +%s)

eval "$("$here/setup.sh" | tail -n 2)"

cd "$root"
go build -o bin/replay ./cmd/replay

work=$(mktemp -d "${TMPDIR:-/tmp}/replay-e2e.XXXXXX")
pid=""
cleanup() {
  status=$?
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if ((status != 0)) && [[ -f $work/serve.log ]]; then
    echo "--- last lines of the server log ($work/serve.log) ---" >&2
    tail -n 30 "$work/serve.log" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${REPLAY_E2E_PORT:-}
if [[ -z $port ]]; then
  for p in $(seq 18400 18499); do
    if port_free "$p"; then port=$p; break; fi
  done
fi
[[ -n $port ]] || { echo "e2e: no free port in 18400-18499" >&2; exit 1; }

export OLLAMA_HOST=127.0.0.1:$port
# HOME: ollama serve writes its key pair under ~/.ollama; keep it in the temp dir.
HOME=$work OLLAMA_MODELS=$work/models OLLAMA_NUM_PARALLEL=4 OLLAMA_MAX_LOADED_MODELS=2 \
  OLLAMA_KEEP_ALIVE=-1 OLLAMA_NOPRUNE=1 \
  "$OLLAMA_BIN" serve >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -sf "http://$OLLAMA_HOST/api/version" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || { echo "e2e: ollama serve exited" >&2; exit 1; }
  sleep 0.3
done
curl -sf "http://$OLLAMA_HOST/api/version" >/dev/null || { echo "e2e: ollama serve did not come up on $OLLAMA_HOST" >&2; exit 1; }

# num_thread 1 is faster than 2 on these 2-core machines; num_ctx is per parallel slot and
# must hold a capped prompt (2048) plus its output.
cat >"$work/raw.Modelfile" <<EOF
FROM $MODEL_GGUF
TEMPLATE "{{ .Prompt }}"
PARAMETER num_thread 1
PARAMETER num_ctx 4096
PARAMETER temperature 0
EOF
cat >"$work/chat.Modelfile" <<EOF
FROM replay-raw
TEMPLATE "[INST] {{ .Prompt }} [/INST]"
EOF
HOME=$work "$OLLAMA_BIN" create replay-raw --quantize q8_0 -f "$work/raw.Modelfile" >"$work/create.log" 2>&1 ||
  { cat "$work/create.log" >&2; exit 1; }
HOME=$work "$OLLAMA_BIN" create replay-chat -f "$work/chat.Modelfile" >>"$work/create.log" 2>&1 ||
  { cat "$work/create.log" >&2; exit 1; }

endpoint=http://$OLLAMA_HOST/v1
# --max-lateness 0: Ollama computes on the same two cores as the client, so the send lateness
# says more about this machine than about the engine; the checks here are of lengths and cache.
replay() { # replay OUT MODEL API [flags...]
  local out=$1 model=$2 api=$3
  shift 3
  bin/replay run --endpoint "$endpoint" --model "$model" --api "$api" \
    --tokenizer samples/tokenizer/mistral --timeout 3m --max-lateness 0 --out "$work/$out" "$@" \
    >"$work/$out.log" 2>&1 || { cat "$work/$out.log" >&2; echo "e2e: replay $out failed" >&2; exit 1; }
}
field() { jq -r "$2 // \"n/a\"" "$work/$1/summary.json"; }

fail=0
check() { # check NAME CONDITION-IN-JQ RUN
  if [[ $(jq -r "$2" "$work/$3/summary.json") != true ]]; then
    echo "FAIL: $1 ($3: $2)" >&2
    fail=1
  fi
}

# The slices, in name order: each is a file in slices/ sourced here, using replay, check and
# field above; REPLAY_E2E_SLICES="options paired" runs only those (the name after the number).
# A slice that needs the other model shape loads it itself (load_model).
load_model() { # load_model NAME PRESET: a second model from setup.sh's other preset
  local name=$1 preset=$2 gguf
  gguf=$(eval "$("$here/setup.sh" --preset "$preset" | tail -n 1)"; echo "$MODEL_GGUF")
  cat >"$work/$name.Modelfile" <<EOF2
FROM $gguf
TEMPLATE "{{ .Prompt }}"
PARAMETER num_thread 1
PARAMETER num_ctx 4096
PARAMETER temperature 0
EOF2
  HOME=$work "$OLLAMA_BIN" create "$name" --quantize q8_0 -f "$work/$name.Modelfile" >>"$work/create.log" 2>&1 ||
    { cat "$work/create.log" >&2; exit 1; }
}
for slice in "$here"/slices/*.sh; do
  name=$(basename "$slice" .sh)
  name=${name#*-}
  if [[ -n ${REPLAY_E2E_SLICES:-} && " $REPLAY_E2E_SLICES " != *" $name "* ]]; then
    continue
  fi
  echo "e2e: slice $name" >&2
  # shellcheck source=/dev/null
  source "$slice"
done

echo "e2e wall time: $(($(date +%s) - t0)) s"
if ((fail)); then
  echo "e2e: FAILED" >&2
  exit 1
fi
echo "e2e: PASS"
