#!/usr/bin/env bash
# e2e.sh: replay against llama.cpp's own server, llama-server (Debian's llama.cpp-tools, in a sid
# chroot), on 127.0.0.1, and check from the server's own usage and /metrics what replay sent.
#
#   1. setup.sh (the cached sid root with llama.cpp-tools, the random-weight Q8_0 GGUF inside it
#      with Mistral's real 32k tokenizer, a reachable end-of-sequence token and replay's chat
#      template);
#   2. the default server: `llama-server -m MODEL --metrics -np 4 -c 8192 -t 1
#      --slot-save-path /slots --cache-ram 0` on a free port;
#   3. the slices in slices/, in name order, each a file sourced here (under set -euo pipefail)
#      with root, replay, work, LLAMA_URL, LLAMA_PID, LLAMA_LOG, MODEL, TOKENIZER and LLAMA_ROOT
#      set (and FIXED_GGUF, setup.sh's model with </s> unreachable, and VISION_MODELS, its
#      folder of vision model folders) and the functions
#      start_llama, pass and fail below (what each measures is in its
#      header); REPLAY_E2E_SLICES="lengths paired" picks some (the name after the number).
# Every process it starts is stopped by its PID on exit; on a failure the last lines of each
# server's log are printed. Exit status 0 only when every slice passed.
# Env: REPLAY_LLAMACPP_CACHE (setup.sh's cache), REPLAY_E2E_PORTS (default 18600-18649: the
# ports servers are started on, the first free one each time).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
t0=$(date +%s)

eval "$("$here/setup.sh" | tail -n 4)"

cd "$root"
go build -o bin/replay ./cmd/replay
replay=$root/bin/replay
TOKENIZER=$root/samples/tokenizer/mistral

work=$(mktemp -d "${TMPDIR:-/tmp}/replay-e2e-llamacpp.XXXXXX")
pids=() # every process started here, stopped by PID on exit
logs=() # every server's log, shown on a failure
slice=setup
cleanup() {
  local status=$? p l
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    wait "$p" 2>/dev/null || true
  done
  if ((status != 0)); then
    for l in "${logs[@]}"; do
      [[ -f $l ]] || continue
      echo "--- last lines of $l ---" >&2
      tail -n 30 "$l" >&2
    done
    echo "e2e: FAILED in slice $slice (work dir kept: $work)" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

pass() { echo "ok   $slice: $*"; }
fail() {
  echo "FAIL $slice: $*" >&2
  exit 1
}

ports=${REPLAY_E2E_PORTS:-18600-18649}
next_port=${ports%-*}
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { # free_port VAR: the next free port of $ports into VAR
  local p
  for ((p = next_port; p <= ${ports#*-}; p++)); do
    if port_free "$p"; then
      next_port=$((p + 1))
      printf -v "$1" %s "$p"
      return
    fi
  done
  fail "no free port left in $ports"
}

# start_llama VAR [llama-server args...]: another server (the default model unless -m is given)
# on a free port; sets ${VAR}_URL, ${VAR}_PID and ${VAR}_LOG once it answers /health. Only -m,
# --host and --port are added to the arguments given. Files the server reads (models, the
# --slot-save-path) are paths inside $LLAMA_ROOT.
start_llama() {
  local var=$1 port pid log a model=(-m "$MODEL_GGUF")
  shift
  for a in "$@"; do
    [[ $a == -m || $a == --model ]] && model=()
  done
  free_port port
  log=$work/llama-$var.log
  chroot "$LLAMA_ROOT" llama-server "${model[@]}" --host 127.0.0.1 --port "$port" "$@" >"$log" 2>&1 &
  pid=$! # chroot execs llama-server: this is the server's PID
  pids+=("$pid")
  logs+=("$log")
  for _ in $(seq 1 150); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
    kill -0 "$pid" 2>/dev/null || fail "llama-server $var exited at start (log: $log)"
    sleep 0.2
  done
  curl -sf "http://127.0.0.1:$port/health" >/dev/null || fail "llama-server $var did not answer /health on port $port in 30 s"
  printf -v "${var}_URL" %s "http://127.0.0.1:$port"
  printf -v "${var}_PID" %s "$pid"
  printf -v "${var}_LOG" %s "$log"
}

# replay_template: chat.DefaultTemplate, replay's own chat template for a tokenizer folder
# without one (the Mistral folder here), written inside the chroot for --chat-template-file;
# prints its path there.
replay_template() {
  mkdir -p "$LLAMA_ROOT/e2e-templates"
  printf '%s' "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' ' + message['content'] + eos_token }}{% else %}{{ raise_exception('only user and assistant roles are supported') }}{% endif %}{% endfor %}" \
    >"$LLAMA_ROOT/e2e-templates/replay.jinja"
  echo /e2e-templates/replay.jinja
}

mkdir -p "$LLAMA_ROOT/slots"
start_llama LLAMA --metrics -np 4 -c 8192 -t 1 --slot-save-path /slots --cache-ram 0
MODEL=$(curl -sf "$LLAMA_URL/v1/models" | jq -r '.data[0].id')
[[ -n $MODEL && $MODEL != null ]] || fail "no model id in $LLAMA_URL/v1/models"
echo "e2e: llama-server $(chroot "$LLAMA_ROOT" llama-server --version 2>&1 | grep -m1 -o 'version: .*') at $LLAMA_URL, model $MODEL" >&2

for f in "$here"/slices/*.sh; do
  slice=$(basename "$f" .sh)
  slice=${slice#*-}
  if [[ -n ${REPLAY_E2E_SLICES:-} && " $REPLAY_E2E_SLICES " != *" $slice "* ]]; then
    continue
  fi
  echo "e2e: slice $slice" >&2
  mkdir -p "$work/$slice"
  # shellcheck source=/dev/null
  source "$f"
done
slice=done

echo "e2e llamacpp wall time: $(($(date +%s) - t0)) s"
echo "e2e llamacpp: PASS"
