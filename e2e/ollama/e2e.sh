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
#   3. the first requests of a generated chat workload (multi-turn sessions, gated on each
#      answer) through /v1/completions and /v1/chat/completions: every request ok,
#      prompt_tokens and completion_tokens exact for 100% of requests;
#   4. generated requests whose 512-token blocks recur (prompts capped at 512 tokens,
#      outputs at 8, one request every 12 s), replayed as the trace says and with
#      --prefix-mode unique: TTFT p50 must be lower with the shared prefixes.
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

# 3. Exact lengths, through both APIs. The workload is generated here (the repository holds no
# copy of a public trace); the same seed gives the same file everywhere.
bin/replay gen --shape chat --seed 1 --out "$work/chat.jsonl" 2>/dev/null
bin/replay gen --shape mixed --seed 1 --out "$work/mixed.jsonl" 2>/dev/null
fid=(--trace "$work/chat.jsonl" --limit 8 --max-prompt-tokens 1024 --speed 4 --on-error skip)
replay completions replay-raw completions "${fid[@]}"
replay chat replay-chat chat "${fid[@]}"
# The engine as replay sees it: detected from the server, what forcing and metrics it allows,
# and no warning on stderr (Ollama serves no /metrics and has no ignore_eos: said, not warned).
check "completions: engine detected as ollama" '.run.engine.name == "ollama"' completions
grep -h 'replay: engine:\|server metrics:' "$work/completions.log" | sed 's/^/e2e: /' || true
if grep -q 'warning' "$work/completions.log"; then
  echo "FAIL: completions: a warning on stderr:" >&2
  grep 'warning' "$work/completions.log" >&2
  fail=1
fi
for r in completions chat; do
  check "$r: every request ok" '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0' $r
  check "$r: prompt tokens exact" '.fidelity.prompt_tokens_exact_pct == 100' $r
  check "$r: output tokens exact" '.fidelity.output_tokens_exact_pct == 100' $r
done

# 4. Prefix cache: generated requests whose leading blocks recur (the first four of the three
# largest groups, 10 requests: 3 first sightings, 7 repeats, sessions dropped so each stands
# alone), each group's requests back to back so a
# repeat finds its prefix still in one of the 4 slots, spaced 12 s apart so each is measured on
# an idle server (this cgo build prefills only ~50-100 tokens/s on one thread); outputs capped
# at 8 tokens.
jq -c '{k: (.hash_ids[0]), r: (. | del(.session_id, .turn))}' "$work/mixed.jsonl" |
  jq -s -c 'group_by(.k) | map(select(length > 1)) | sort_by(-length) | .[:3] | map(.[:4]) | flatten | .[:10]
    | to_entries[] | .value.r + {timestamp: (.key * 12000), output_length: ([.value.r.output_length, 8] | min)}' \
    >"$work/shared.jsonl"
pfx=(--trace "$work/shared.jsonl" --max-prompt-tokens 512 --speed 1)
replay cached replay-raw completions "${pfx[@]}"
replay unique replay-raw completions "${pfx[@]}" --prefix-mode unique
for r in cached unique; do
  check "$r: every request ok" '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0' $r
done
cached=$(field cached .ttft_ms.p50)
unique=$(field unique .ttft_ms.p50)
if ! jq -en --argjson c "$cached" --argjson u "$unique" '$c < $u' >/dev/null 2>&1; then
  echo "FAIL: TTFT p50 with the prefix cache ($cached ms) is not below unique prefixes ($unique ms)" >&2
  fail=1
fi

printf '\n%-34s %12s %12s %12s %12s\n' "real engine: ollama $(basename "$(dirname "$OLLAMA_BIN")")" completions chat cached unique
printf '%-34s %12s %12s %12s %12s\n' "requests ok/total" \
  "$(field completions .requests.ok)/$(field completions .requests.total)" "$(field chat .requests.ok)/$(field chat .requests.total)" \
  "$(field cached .requests.ok)/$(field cached .requests.total)" "$(field unique .requests.ok)/$(field unique .requests.total)"
printf '%-34s %12s %12s %12s %12s\n' "prompt-token exactness %" \
  "$(field completions .fidelity.prompt_tokens_exact_pct)" "$(field chat .fidelity.prompt_tokens_exact_pct)" \
  "$(field cached .fidelity.prompt_tokens_exact_pct)" "$(field unique .fidelity.prompt_tokens_exact_pct)"
printf '%-34s %12s %12s %12s %12s\n' "output-token exactness %" \
  "$(field completions .fidelity.output_tokens_exact_pct)" "$(field chat .fidelity.output_tokens_exact_pct)" \
  "$(field cached .fidelity.output_tokens_exact_pct)" "$(field unique .fidelity.output_tokens_exact_pct)"
printf '%-34s %12s %12s %12s %12s\n' "TTFT p50 ms" \
  "$(field completions .ttft_ms.p50)" "$(field chat .ttft_ms.p50)" "$cached" "$unique"
echo "TTFT p50 with the prefix cache: $cached ms vs unique prefixes: $unique ms"
echo "e2e wall time: $(($(date +%s) - t0)) s"
if ((fail)); then
  echo "e2e: FAILED" >&2
  exit 1
fi
echo "e2e: PASS"
