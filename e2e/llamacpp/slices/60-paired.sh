# slice paired: one schedule sent to Ollama (A) and to llama-server (B) at once, both serving
# the very same Q8_0 GGUF (setup.sh's FIXED_GGUF: mkmodel's default weights, </s> unreachable,
# so Ollama, which cannot force a length, runs every answer to max_tokens as llama-server does
# with ignore_eos), one thread each, 4 parallel slots each; the paired verdict is printed as
# replay compare writes it. Ollama comes from e2e/ollama/setup.sh (REPLAY_OLLAMA_CACHE as there),
# `ollama serve` is started here on a free port and stopped by its PID at the end.
# Sourced by e2e.sh (replay, work, LLAMA_ROOT, FIXED_GGUF, TOKENIZER, start_llama, free_port,
# pids, logs, pass, fail are its).
d=$work/paired
OLLAMA_BIN=$(eval "$("$root/e2e/ollama/setup.sh" | tail -n 2)" && echo "$OLLAMA_BIN")
free_port oport
HOME=$d OLLAMA_HOST=127.0.0.1:$oport OLLAMA_MODELS=$d/models OLLAMA_NUM_PARALLEL=4 \
  OLLAMA_MAX_LOADED_MODELS=1 OLLAMA_KEEP_ALIVE=-1 OLLAMA_NOPRUNE=1 \
  "$OLLAMA_BIN" serve >"$d/ollama.log" 2>&1 &
opid=$!
pids+=("$opid")
logs+=("$d/ollama.log")
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$oport/api/version" >/dev/null && break
  kill -0 "$opid" 2>/dev/null || fail "ollama serve exited at start"
  sleep 0.3
done
curl -sf "http://127.0.0.1:$oport/api/version" >/dev/null || fail "ollama serve did not answer on port $oport"
# TEMPLATE {{ .Prompt }}: /v1/completions is templated by Ollama too. num_ctx is per slot:
# llama-server's -c 8192 over -np 4 is 2048 a slot.
cat >"$d/Modelfile" <<EOF
FROM $LLAMA_ROOT$FIXED_GGUF
TEMPLATE "{{ .Prompt }}"
PARAMETER num_thread 1
PARAMETER num_ctx 2048
PARAMETER temperature 0
EOF
HOME=$d OLLAMA_HOST=127.0.0.1:$oport "$OLLAMA_BIN" create replay-small -f "$d/Modelfile" >"$d/create.log" 2>&1 ||
  { cat "$d/create.log" >&2; fail "ollama create from $LLAMA_ROOT$FIXED_GGUF failed"; }
start_llama PAIRED -m "$FIXED_GGUF" --metrics -np 4 -c 8192 -t 1
lmodel=$(curl -sf "$PAIRED_URL/v1/models" | jq -r '.data[0].id')

# 16 generated chat requests, each alone on both servers (4 s apart), outputs capped at 12
# tokens and prompts at 256, as e2e/ollama's paired slice.
"$replay" gen --shape chat --seed 4 --out "$d/gen.jsonl" 2>/dev/null
jq -s -c '.[:16] | map(del(.session_id, .turn)) | to_entries[]
    | .value + {timestamp: (.key * 4000), output_length: ([.value.output_length, 12] | min)}' \
  "$d/gen.jsonl" >"$d/trace.jsonl"
"$replay" run --trace "$d/trace.jsonl" --endpoint "a=http://127.0.0.1:$oport/v1" --endpoint "b=$PAIRED_URL/v1" \
  --model a=replay-small --model "b=$lmodel" --api completions --tokenizer "$TOKENIZER" \
  --max-prompt-tokens 256 --speed 1 --timeout 3m --max-lateness 0 --checks none --out "$d/run" \
  >"$d/run.log" 2>&1 || { rc=$?; cat "$d/run.log" >&2; fail "paired run exited $rc"; }
# Both stopped by PID now, so the later slices have the cores (e2e.sh's exit kills them again,
# harmlessly, if a check below fails first).
kill "$opid" "$PAIRED_PID" 2>/dev/null || true
wait "$opid" "$PAIRED_PID" 2>/dev/null || true

pf() { jq -r "$2" "$d/run/$1/summary.json"; }
for s in a b; do
  [[ $(pf $s '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total == 16') == true ]] ||
    fail "$s: $(pf $s .requests.ok) of $(pf $s .requests.total) requests ok"
  [[ $(pf $s '.fidelity.prompt_tokens_exact_pct == 100 and .fidelity.output_tokens_exact_pct == 100') == true ]] ||
    fail "$s: prompt tokens $(pf $s .fidelity.prompt_tokens_exact_pct)% and output tokens $(pf $s .fidelity.output_tokens_exact_pct)% exact"
done
[[ $(pf a .run.engine.name) == ollama && $(pf b .run.engine.name) == llamacpp ]] ||
  fail "engines detected as $(pf a .run.engine.name) and $(pf b .run.engine.name), not ollama and llamacpp"
verdict=$(jq -r .verdict "$d/run/compare.json")
[[ -n $verdict && $verdict != null ]] || fail "no verdict in compare.json"
pass "A = ollama $(pf a .run.engine.version), B = llama-server $(pf b .run.engine.version), one Q8_0 GGUF, 16 requests each 100% exact: $verdict"
jq -r 'def r: . * 10 | round / 10; .paired[] | "e2e: paired \(.name): A median \(.median_a_ms | r) ms, B-A median \(.median_diff_ms.delta | r) ms [\(.median_diff_ms.lo | r), \(.median_diff_ms.hi | r)]: \(.direction)"' \
  "$d/run/compare.json" >&2
