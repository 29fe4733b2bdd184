# slice reasoning: replay against llama-server serving a model that thinks, its stream split by
# llama.cpp's own reasoning parser (--reasoning-format deepseek, reasoning_content deltas). The
# chat template opens a think block in the generation prompt and renders an assistant turn's
# reasoning_content between <think> and </think> (the Qwen3 shape, by which llama.cpp knows a
# template that thinks: at -lv 4 its log says "chat template, thinking = 1"); replay is given the same
# template in its tokenizer folder, so prompts stay exact. The random-weight model never writes
# </think> within its cap, so every answer is thinking to the end: a stream that thinks and
# never answers. Checked: every request ok, prompt tokens 100% exact; each row's thinking
# counted as the server's usage counts its completion (the run's thinking tokens are the
# server's completion tokens, answer tokens 0); summary.json's reasoning section counts every
# request as never answered, ttfat_ms has no sample and a ttfat SLO is met by none. Beside it, one
# request streamed with curl: its reasoning_content deltas, content deltas and usage, printed,
# the count replay must agree with. llama.cpp's usage has no reasoning breakout, and this
# build does not end thinking at a per-request budget (reasoning_budget_tokens changed
# nothing when tried), so a split inside one answer is not tested here (the simulator's
# test does that: cmd/replay TestReasoningReplay). Sourced by e2e.sh.
d=$work/reasoning
mkdir -p "$d/tok" "$LLAMA_ROOT/e2e-templates"
think='{{ bos_token }}{% for message in messages %}{% if message['"'"'role'"'"'] == '"'"'user'"'"' %}{{ '"'"'[INST] '"'"' + message['"'"'content'"'"'] + '"'"' [/INST]'"'"' }}{% elif message['"'"'role'"'"'] == '"'"'assistant'"'"' %}{{ '"'"' '"'"' }}{% if message.reasoning_content is defined and message.reasoning_content %}{{ '"'"'<think>\n'"'"' + message.reasoning_content + '"'"'\n</think>\n\n'"'"' }}{% endif %}{{ message['"'"'content'"'"'] + eos_token }}{% endif %}{% endfor %}{% if add_generation_prompt %}{% if enable_thinking is defined and enable_thinking is false %}{{ '"'"'<think>\n\n</think>\n\n'"'"' }}{% else %}{{ '"'"'<think>\n'"'"' }}{% endif %}{% endif %}'
printf '%s' "$think" >"$LLAMA_ROOT/e2e-templates/think.jinja"
cp "$TOKENIZER/tokenizer.json" "$d/tok/"
jq --arg t "$think" '.chat_template = $t' "$TOKENIZER/tokenizer_config.json" >"$d/tok/tokenizer_config.json"
start_llama THINK --jinja --chat-template-file /e2e-templates/think.jinja --reasoning-format deepseek --metrics -np 4 -c 8192 -t 1

# The server's own stream of one request, counted here.
curl -sf "$THINK_URL/v1/chat/completions" -d '{"model":"m","messages":[{"role":"user","content":"What is 17 times 23?"}],"max_tokens":24,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}' \
  | sed -n 's/^data: //p' | grep -v '^\[DONE\]' >"$d/curl.jsonl"
c_think=$(jq -s '[.[] | .choices[]?.delta.reasoning_content // empty | select(. != "")] | length' "$d/curl.jsonl")
c_answer=$(jq -s '[.[] | .choices[]?.delta.content // empty | select(. != "")] | length' "$d/curl.jsonl")
c_usage=$(jq -s '[.[] | .usage.completion_tokens // empty] | last' "$d/curl.jsonl")
[[ $c_think -gt 0 && $c_answer == 0 && $c_usage == 24 ]] ||
  fail "the server's own stream: $c_think reasoning_content deltas, $c_answer content deltas, usage $c_usage (want thinking only, 24 tokens)"

"$replay" gen --shape chat --seed 11 --out "$d/chat.jsonl" 2>/dev/null
"$replay" run --endpoint "$THINK_URL/v1" --model "$MODEL" --api chat --tokenizer "$d/tok" --trace "$d/chat.jsonl" --limit 8 \
  --max-prompt-tokens 1024 --speed 4 --on-error skip --timeout 3m --max-lateness 0 --checks none \
  --slo ttft=5m,ttfat=5m --out "$d/run" >"$d/run.log" 2>&1 ||
  { rc=$?; cat "$d/run.log" >&2; fail "replay run exited $rc"; }
rf() { jq -r "$@" "$d/run/summary.json"; }
[[ $(rf '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0') == true ]] ||
  fail "$(rf .requests.ok) of $(rf .requests.total) ok, errors $(rf -c .errors) $(rf -c .error_samples)"
[[ $(rf '.fidelity.prompt_tokens_exact_pct == 100') == true ]] ||
  fail "prompt tokens $(rf .fidelity.prompt_tokens_exact_pct)% exact under the thinking template"
[[ $(rf '.reasoning.requests == .requests.ok and .reasoning.never_answered == .requests.ok and .reasoning.answer_tokens == 0 and .reasoning.reasoning_tokens == .throughput.output_tokens and .ttfat_ms.count == 0 and .goodput.met_pct.ttfat == 0') == true ]] ||
  fail "reasoning $(rf -c .reasoning), ttfat $(rf -c .ttfat_ms), goodput $(rf -c .goodput)"
pass "llama-server's stream of one request: $c_think reasoning_content deltas, $c_answer content deltas, $c_usage completion tokens; replay of $(rf .requests.total) requests: all ok, prompt tokens $(rf .fidelity.prompt_tokens_exact_pct)% exact, $(rf .reasoning.reasoning_tokens) thinking tokens = the server's $(rf .throughput.output_tokens) completion tokens, $(rf .reasoning.never_answered) thought and never answered (no TTFAT: $(rf .ttfat_ms.count) samples; ttfat goodput $(rf .goodput.met_pct.ttfat)%), itl of thinking p50 $(rf .reasoning.itl_thinking_ms.p50) ms"
