# slice lengths: replay gen's chat workload against llama-server through both APIs, forced and
# unforced, judged by the server's own usage. Sourced by e2e.sh (replay, work, LLAMA_URL, MODEL,
# TOKENIZER, pass, fail are its).
#   forced:   replay detects llama.cpp and forces every length with ignore_eos (its probe: a
#             prompt that stops early, asked 32 tokens, got 32); prompt and output tokens must be
#             100.0% exact on both APIs.
#   unforced: the same requests with --engine generic (no forcing field is sent): the model's
#             reachable </s> (setup.sh, mkmodel --eos reachable) ends answers early, so this
#             says how many of them forcing made run to their length. Prompt tokens stay exact.
# --checks none: the behaviour checks are slice checks' subject; --max-lateness 0: the server
# computes on the client's two cores, so send lateness says more about this machine.
d=$work/lengths
"$replay" gen --shape chat --seed 1 --out "$d/chat.jsonl" 2>/dev/null
lengths_run() { # lengths_run OUT API [flags...]
  local out=$1 api=$2
  shift 2
  "$replay" run --endpoint "$LLAMA_URL/v1" --model "$MODEL" --api "$api" --tokenizer "$TOKENIZER" \
    --trace "$d/chat.jsonl" --limit 8 --max-prompt-tokens 1024 --speed 4 --on-error skip \
    --timeout 3m --max-lateness 0 --checks none --out "$d/$out" "$@" >"$d/$out.log" 2>&1 ||
    { rc=$?; cat "$d/$out.log" >&2; fail "replay run $out exited $rc"; }
}
lf() { local r=$1; shift; jq -r "$@" "$d/$r/summary.json"; } # lf RUN [jq flags] JQ: RUN's summary

for api in completions chat; do
  lengths_run "forced-$api" "$api"
  r=forced-$api
  [[ $(lf $r .run.engine.name) == llamacpp ]] || fail "$api: engine detected as $(lf $r .run.engine.name), not llamacpp"
  [[ $(lf $r '.run.engine.forced and .run.engine.force_fields.ignore_eos == true') == true ]] ||
    fail "$api: lengths not forced with ignore_eos: $(lf $r '.run.engine | {forced, forcing, force_fields, probe}' | tr -d '\n')"
  [[ $(lf $r '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0') == true ]] ||
    fail "$api forced: $(lf $r .requests.ok) of $(lf $r .requests.total) requests ok"
  [[ $(lf $r '.fidelity.prompt_tokens_exact_pct == 100 and .fidelity.output_tokens_exact_pct == 100') == true ]] ||
    fail "$api forced: prompt tokens $(lf $r .fidelity.prompt_tokens_exact_pct)% exact, output tokens $(lf $r .fidelity.output_tokens_exact_pct)% exact"
  pass "$api forced ($(lf $r .run.engine.probe)): $(lf $r .requests.ok)/$(lf $r .requests.total) ok, prompt tokens $(lf $r .fidelity.prompt_tokens_exact_pct)% and output tokens $(lf $r .fidelity.output_tokens_exact_pct)% exact by the server's usage ($(lf $r .fidelity.usage_reported) reported)"

  # --max-error-rate 1: an answer whose first token is </s> has no content chunk, which replay
  # counts as a failed request (bad_stream); here it is the earliest stop, counted as one.
  lengths_run "unforced-$api" "$api" --engine generic --max-error-rate 1
  r=unforced-$api
  [[ $(lf $r '.run.engine.forced') != true ]] || fail "$api unforced: summary says forced: $(lf $r .run.engine.forcing)"
  m=$(lf $r .requests.total)
  ok=$(lf $r .requests.ok)
  zero=$(lf $r '.errors.bad_stream // 0')
  [[ $((ok + zero)) == "$m" && $(lf $r '.error_samples.bad_stream // "no content chunk" | startswith("no content chunk")') == true ]] ||
    fail "$api unforced: $ok of $m requests ok, $zero without content, errors $(lf $r -c .errors) $(lf $r -c .error_samples)"
  [[ $(lf $r '.fidelity.prompt_tokens_exact_pct == 100') == true ]] ||
    fail "$api unforced: prompt tokens $(lf $r .fidelity.prompt_tokens_exact_pct)% exact"
  n=$(lf $r "(($ok * (100 - .fidelity.output_tokens_exact_pct) / 100) + 0.5 | floor) + $zero")
  got=$(lf $r '[.populations[].output_tokens] | add')
  asked=$(lf "forced-$api" '[.populations[].output_tokens] | add')
  ((n > 0)) || fail "$api unforced: no answer stopped early ($got of $asked output tokens): forcing is not measured"
  pass "$api unforced (--engine generic: no forcing field sent): $n of $m stopped early ($zero at their first token, without content), $got of the $asked output tokens forcing gets; prompt tokens $(lf $r .fidelity.prompt_tokens_exact_pct)% exact"
done
