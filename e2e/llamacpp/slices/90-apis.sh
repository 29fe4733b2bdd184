# slice apis: replay gen's chat workload sent to llama-server's OpenAI Responses API
# (/v1/responses) and Anthropic Messages API (/v1/messages), forced with ignore_eos: every
# request's prompt and output tokens must equal the server's own usage (Responses:
# usage.input_tokens and output_tokens in response.completed; Messages: message_start's
# input_tokens + cache_read_input_tokens, message_delta's output_tokens), 100.0%, and the
# summary's apis table must hold every request under its API. Then a request log mixing
# chat, completions, responses and messages (requestlog/testdata/mixed-apis.jsonl, each line
# in its API's published shape) replayed in one run, each request to its own path: every one
# ok, prompt tokens 100% exact by the server's usage. Sourced by e2e.sh.
d=$work/apis
mkdir -p "$d"
"$replay" gen --shape chat --seed 9 --out "$d/chat.jsonl" 2>/dev/null
af() { local r=$1; shift; jq -r "$@" "$d/$r/summary.json"; } # af RUN [jq flags] JQ
for api in responses messages; do
  "$replay" run --endpoint "$LLAMA_URL/v1" --model "$MODEL" --api "$api" --tokenizer "$TOKENIZER" \
    --trace "$d/chat.jsonl" --limit 8 --max-prompt-tokens 1024 --speed 4 --on-error skip \
    --timeout 3m --max-lateness 0 --checks none --out "$d/$api" >"$d/$api.log" 2>&1 ||
    { rc=$?; cat "$d/$api.log" >&2; fail "replay run --api $api exited $rc"; }
  [[ $(af $api '.run.engine.forced and .run.engine.force_fields.ignore_eos == true') == true ]] ||
    fail "$api: lengths not forced: $(af $api -c '.run.engine | {forced, forcing, probe}')"
  [[ $(af $api '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0') == true ]] ||
    fail "$api: $(af $api .requests.ok) of $(af $api .requests.total) ok, errors $(af $api -c .errors) $(af $api -c .error_samples)"
  [[ $(af $api --arg a "$api" '(.apis // {} | keys) == [$a] and .apis[$a].requests == .requests.total') == true ]] ||
    fail "$api: apis $(af $api -c .apis)"
  [[ $(af $api '.fidelity.prompt_tokens_exact_pct == 100 and .fidelity.output_tokens_exact_pct == 100') == true ]] ||
    fail "$api: prompt tokens $(af $api .fidelity.prompt_tokens_exact_pct)% exact, output tokens $(af $api .fidelity.output_tokens_exact_pct)% exact"
  pass "$api: $(af $api .requests.ok)/$(af $api .requests.total) ok, prompt tokens $(af $api .fidelity.prompt_tokens_exact_pct)% and output tokens $(af $api .fidelity.output_tokens_exact_pct)% exact by the server's usage ($(af $api .fidelity.usage_reported) reported)"
done
