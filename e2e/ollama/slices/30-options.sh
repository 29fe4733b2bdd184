# slice options: a request log whose requests carry their own options (non-streamed, temperature,
# stop, a JSON response_format: json_object and json_schema), replayed as logged
# (--format openai-log, --options logged) against Ollama: every request ok and the prompt
# lengths exact, and what Ollama does with each option, measured from each run's summary.
# Sourced by e2e.sh (replay, check, field, fail, work are its). --max-error-rate 1: a request
# Ollama refuses is judged here (every request ok), after the slice has said what it refused.
#
# The log comes from internal/genlog (the generator requestlog is tested on, options mixed in),
# cut down to what this engine's models can be measured on: chat requests without tools, n = 1,
# not cancelled; each request's messages joined into one user message (the Mistral tokenizer
# here has no chat template: replay renders [INST] ... [/INST] as the replay-chat model does,
# which has no system turn); outputs capped at 12 tokens and prompts at 256 (this cgo build
# prefills ~50-100 tokens/s on one thread); 4 s apart. Three requests of each group, each
# group replayed on its own so its summary is that option's:
#   nostream     not streamed (no response_format, no stop)
#   temperature  streamed, a temperature (no stop, no response_format)
#   stop         stop strings (no response_format)
#   json_object  response_format json_object
#   json_schema  response_format json_schema (with its schema)
# The other options the log's requests carry (top_p, seed, penalties, logprobs) are sent as
# logged too. The cap goes in max_tokens in these groups: Ollama 0.17.4's OpenAI layer reads
# max_tokens only (openai/openai.go), so a max_completion_tokens request would run uncapped (its
# context shift lets the random-weight model go on for ever): replay sends such a cap as
# max_tokens to Ollama and says so (engine.ReadsMaxCompletionTokens). One such request is
# replayed on its own (group max_completion_tokens, --timeout 30s) to check that it is capped.
go run ./internal/genlog/cmd/genlog -n 3000 -seed 1 -options >"$work/genlog-options.jsonl" 2>/dev/null
jq -n -c --argjson per 3 --argjson cap 12 --argjson gap 4 '
  def body: .request | if type == "string" then fromjson else . end;
  def group: body as $b
    | if ($b.response_format.type? // "") == "json_schema" then "json_schema"
      elif ($b.response_format.type? // "") == "json_object" then "json_object"
      elif $b.stop != null then "stop"
      elif ($b.stream // false) == false then "nostream"
      elif $b.temperature != null then "temperature"
      else "other" end;
  [inputs
   | select((.status == null or .status == 200) and .cancelled != true)
   | body as $b
   | select($b.messages != null and $b.tools == null and ($b.n // 1) == 1)
   | select(all($b.messages[]; .role == "system" or .role == "user" or (.role == "assistant" and .tool_calls == null)))
   | {g: group, l: .}]
  | map(select(.g != "other")) | group_by(.g) | map(.[:$per]) | flatten | to_entries[]
  | .key as $i | .value.g as $g | .value.l as $l | ($l | body) as $b
  | ([$l.response.usage.completion_tokens? // $cap, $cap] | min) as $k
  | {group: $g, line: {
      timestamp: ((1772355600 + $i * $gap) | todate),
      request: ($b | {model, stream, temperature, top_p, seed, stop, presence_penalty, frequency_penalty,
                      logprobs, top_logprobs, response_format, max_tokens, max_completion_tokens}
                | with_entries(select(.value != null))
                | del(.max_completion_tokens) | .max_tokens = $k
                | .messages = [{role: "user", content: ([$b.messages[].content] | join("\n\n"))}]),
      response: {choices: [{index: 0, message: {role: "assistant", content: ""},
                            finish_reason: ($l.response.choices[0].finish_reason? // "length")}],
                 usage: {completion_tokens: $k}}}}' \
  "$work/genlog-options.jsonl" >"$work/options-all.jsonl"
# The max_completion_tokens probe: the first streamed plain request of the log that used it.
jq -c -s '
  map(select(.request | type == "object") | select(.request.max_completion_tokens != null and .request.stream == true
      and .request.messages != null and .request.tools == null and .request.stop == null and .request.response_format == null
      and (.request.n // 1) == 1 and (.status == null or .status == 200) and .cancelled != true)) | .[:1][]
  | {group: "max_completion_tokens", line: {timestamp: "2026-03-01T09:00:00Z",
      request: (.request | {model, stream, max_completion_tokens: 12,
                            messages: [{role: "user", content: ([.messages[].content] | join("\n\n"))}]}),
      response: {choices: [{index: 0, message: {role: "assistant", content: ""}, finish_reason: "length"}], usage: {completion_tokens: 12}}}}' \
  "$work/genlog-options.jsonl" >>"$work/options-all.jsonl"

opt_groups=(nostream temperature stop json_object json_schema)
# --checks all, where this build has it: replay's own probes of the endpoint (stop honoured,
# sampling accepted, json_schema answers valid, ...), in the stop run's summary; none elsewhere.
opt_checks=()
opt_help=$(bin/replay run --help 2>&1 || true)
[[ $opt_help == *"--checks string"* ]] && opt_checks=(--checks none)
for g in "${opt_groups[@]}"; do
  jq -c --arg g "$g" 'select(.group == $g) | .line' "$work/options-all.jsonl" >"$work/options-$g.jsonl"
  n=$(wc -l <"$work/options-$g.jsonl")
  if ((n == 0)); then
    echo "FAIL: options: the generated log has no $g request" >&2
    fail=1
    continue
  fi
  checks=("${opt_checks[@]}")
  [[ $g == stop && ${#opt_checks[@]} -gt 0 ]] && checks=(--checks all)
  replay "opt-$g" replay-chat chat --trace "$work/options-$g.jsonl" --format openai-log --options logged \
    --max-prompt-tokens 256 --speed 1 --max-error-rate 1 "${checks[@]}"
  check "options $g: every request ok" '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0' "opt-$g"
  check "options $g: sent with the logged options" '.run.options == "logged"' "opt-$g"
  check "options $g: prompt tokens exact" '.fidelity.prompt_tokens_exact_pct == 100' "opt-$g"
  check "options $g: usage reported by every request" '.fidelity.usage_reported == .requests.total' "opt-$g"
done
# max_completion_tokens: sent as max_tokens to Ollama, so capped and ok (said below).
jq -c 'select(.group == "max_completion_tokens") | .line' "$work/options-all.jsonl" >"$work/options-max_completion_tokens.jsonl"
if [[ -s $work/options-max_completion_tokens.jsonl ]]; then
  replay opt-max_completion_tokens replay-chat chat --trace "$work/options-max_completion_tokens.jsonl" --format openai-log \
    --options logged --max-prompt-tokens 256 --max-error-rate 1 --timeout 30s "${opt_checks[@]}"
else
  echo "FAIL: options: the generated log has no streamed plain request with max_completion_tokens" >&2
  fail=1
fi
check "options nostream: measured as not streamed" '(.populations | keys) == ["nostream/plain"]' opt-nostream
check "options json_schema: measured as JSON" '(.populations | keys | map(endswith("/json")) | all)' opt-json_schema

# What Ollama does with each option, from the runs' summaries: the output it gave against the
# output asked for (a stop string met, or a JSON answer closed, ends an answer early; Ollama
# cannot be made to run to a length, so these requests are sent unforced either way).
printf '\n%-12s %8s %8s %8s %10s %12s %-22s\n' "ollama: option" "ok/n" "prompt=" "usage" "output" "e2e p50 ms" "populations"
for g in "${opt_groups[@]}"; do
  r=opt-$g
  [[ -f $work/$r/summary.json ]] || continue
  asked=$(jq -s '[.[].response.usage.completion_tokens] | add' "$work/options-$g.jsonl")
  got=$(jq '[.populations[].output_tokens] | add' "$work/$r/summary.json")
  e2e=$(jq -r '[.populations[].e2e_ms.p50] | max | . * 10 | round / 10' "$work/$r/summary.json")
  printf '%-14s %8s %7s%% %8s %10s %12s %-22s\n' "$g" "$(field "$r" .requests.ok)/$(field "$r" .requests.total)" \
    "$(field "$r" .fidelity.prompt_tokens_exact_pct)" "$(field "$r" .fidelity.usage_reported)" "$got/$asked" "$e2e" \
    "$(jq -r '.populations | keys | join(",")' "$work/$r/summary.json")"
done
for g in "${opt_groups[@]}"; do
  r=opt-$g
  [[ -f $work/$r/summary.json ]] || continue
  ok=$(field "$r" .requests.ok) total=$(field "$r" .requests.total)
  asked=$(jq -s '[.[].response.usage.completion_tokens] | add' "$work/options-$g.jsonl")
  got=$(jq '[.populations[].output_tokens] | add' "$work/$r/summary.json")
  early="every answer ran to the cap"
  ((got < asked)) && early="$((asked - got)) tokens short of the cap"
  case $g in
  nostream) what="non-streamed: $ok of $total answered in one piece, usage in $(field "$r" .fidelity.usage_reported) (prompt tokens exact $(field "$r" .fidelity.prompt_tokens_exact_pct)%), $got of $asked output tokens" ;;
  temperature) what="temperature $(jq -s -c 'map(.request.temperature)' "$work/options-$g.jsonl"): accepted in $ok of $total, $got of $asked output tokens (its effect on sampling is not measurable on random weights)" ;;
  stop)
    what="stop $(jq -s -c 'map(.request.stop)' "$work/options-$g.jsonl"): accepted in $ok of $total, $got of $asked output tokens: $early"
    ((got < asked)) && what+=" (a stop string ended an answer)" ||
      what+=" (no stop string came up in this model's output, so this run does not show Ollama cutting at one)"
    ;;
  json_object | json_schema)
    what="response_format $g: accepted in $ok of $total, $got of $asked output tokens: $early"
    ((got < asked)) && what+=" (a JSON answer closed before the cap)" || what+=" (the JSON was still open at the cap)"
    ;;
  esac
  echo "e2e: ollama options: $what"
  if ((ok < total)); then
    echo "e2e: ollama options: $g: Ollama refused or failed $((total - ok)) of $total: $(jq -r '[.errors | .. | strings] | unique | join("; ") | .[:300]' "$work/$r/summary.json")"
  fi
done
r=opt-max_completion_tokens
if [[ -f $work/$r/summary.json ]]; then
  check "options max_completion_tokens: capped (sent as max_tokens)" '.requests.ok == 1' "$r"
  if grep -q 'reads max_tokens, not max_completion_tokens' "$work/$r.log"; then
    echo "e2e: ollama options: max_completion_tokens 12: Ollama reads max_tokens only; replay sent the cap as max_tokens and the answer ended after $(jq '[.populations[].output_tokens] | add' "$work/$r/summary.json") tokens"
  else
    echo "FAIL: options max_completion_tokens: replay did not say it sent the cap as max_tokens" >&2
    fail=1
  fi
fi
if [[ -f $work/opt-stop/summary.json ]]; then
  # replay's own probes (--checks all), not the log's requests: a random-weight model cannot
  # make a valid tool call nor close a JSON answer within the probes' caps.
  jq -r '.run.checks.results[]? | "e2e: ollama checks (replay --checks all probes): \(.name): \(if .skipped then "skipped (\(.skipped))" else "\(.pass) pass, \(.fail) fail" end)\(if .seen then ": \(.seen)" else "" end)"' \
    "$work/opt-stop/summary.json"
fi
