# slice apis: replay gen's chat workload sent to llama-server's OpenAI Responses API
# (/v1/responses) and Anthropic Messages API (/v1/messages), judged by the server's own usage
# (Responses: response.completed's usage.input_tokens and output_tokens; Messages:
# message_start's input_tokens + cache_read_input_tokens, message_delta's output_tokens). The
# server runs setup.sh's model whose </s> is unreachable (FIXED_GGUF) under replay's own chat
# template, because llama.cpp drops ignore_eos on /v1/messages (engine.ForcesOn): there an
# answer runs to its cap by the model alone, and replay must say it sent those requests
# unforced. Responses requests are forced with ignore_eos as chat's are. Both: every request
# ok, prompt tokens 100.0% exact, and every answer of its asked length (Responses: output
# exactness 100%; Messages: its requests' output tokens, each at most its cap, add up to the
# Responses run's, which are exact). Sourced by e2e.sh.
d=$work/apis
mkdir -p "$d"
start_llama APIS -m "$FIXED_GGUF" --jinja --chat-template-file "$(replay_template)" --metrics -np 4 -c 8192 -t 1
"$replay" gen --shape chat --seed 9 --out "$d/chat.jsonl" 2>/dev/null
af() { local r=$1; shift; jq -r "$@" "$d/$r/summary.json"; } # af RUN [jq flags] JQ
for api in responses messages; do
  "$replay" run --endpoint "$APIS_URL/v1" --model "$MODEL" --api "$api" --tokenizer "$TOKENIZER" \
    --trace "$d/chat.jsonl" --limit 8 --max-prompt-tokens 1024 --speed 4 --on-error skip \
    --timeout 3m --max-lateness 0 --checks none --out "$d/$api" >"$d/$api.log" 2>&1 ||
    { rc=$?; cat "$d/$api.log" >&2; fail "replay run --api $api exited $rc"; }
  [[ $(af $api '.run.engine.name') == llamacpp ]] || fail "$api: engine $(af $api .run.engine.name)"
  [[ $(af $api '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0') == true ]] ||
    fail "$api: $(af $api .requests.ok) of $(af $api .requests.total) ok, errors $(af $api -c .errors) $(af $api -c .error_samples)"
  [[ $(af $api --arg a "$api" '(.apis // {} | keys) == [$a] and .apis[$a].requests == .requests.total') == true ]] ||
    fail "$api: apis $(af $api -c .apis)"
  [[ $(af $api '.fidelity.prompt_tokens_exact_pct == 100 and .fidelity.usage_reported == .requests.ok') == true ]] ||
    fail "$api: prompt tokens $(af $api .fidelity.prompt_tokens_exact_pct)% exact ($(af $api .fidelity.usage_reported) usage reported)"
done
[[ $(af responses '.fidelity.output_tokens_exact_pct == 100') == true ]] ||
  fail "responses: output tokens $(af responses .fidelity.output_tokens_exact_pct)% exact"
pass "responses: $(af responses .requests.ok)/$(af responses .requests.total) ok, forced ($(af responses .run.engine.probe)); prompt tokens $(af responses .fidelity.prompt_tokens_exact_pct)% and output tokens $(af responses .fidelity.output_tokens_exact_pct)% exact by the server's usage"
grep -q 'drops the forcing fields on its messages API' "$d/messages.log" ||
  fail "messages: replay did not say llama.cpp drops the forcing fields there"
want=$(af responses '.apis.responses.output_tokens')
got=$(af messages '.apis.messages.output_tokens')
[[ $got == "$want" && $(af messages '.errors.short // 0') == 0 ]] ||
  fail "messages: $got output tokens, the asked lengths add up to $want"
pass "messages: $(af messages .requests.ok)/$(af messages .requests.total) ok, sent unforced (llama.cpp drops ignore_eos there); prompt tokens $(af messages .fidelity.prompt_tokens_exact_pct)% exact, output $got of the $want tokens asked (each at most its cap), by the server's usage"
