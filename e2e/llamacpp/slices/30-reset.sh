# slice reset: --reset-cache erases llama.cpp's slots. Sourced by e2e.sh (E2E-CONTRACT: root,
# replay, work, LLAMA_URL, MODEL, TOKENIZER; start_llama, pass, fail).
# One 200-token request, replayed three times with the same prompt (replay builds it from the
# trace, the same each run) against the default server (--slot-save-path /slots --cache-ram 0):
# a first run warms a slot; a second without --reset-cache finds its prompt cached (so a
# repeat is seen when the cache is warm); a third with --reset-cache says "reset" and its
# repeat finds 0 tokens cached (usage's prompt_tokens_details.cached_tokens, summed in
# summary.json's cache.cached_tokens). Then two servers the reset cannot empty: one without
# --slot-save-path (llama.cpp answers 501 to every slot action) and one with a host-memory
# prompt cache (--cache-ram left at its default), each named in the summary's reason.
d=$work/reset
mkdir -p "$d"
printf '{"timestamp": 0, "input_length": 200, "output_length": 4, "hash_ids": [1]}\n' >"$d/trace.jsonl"
reset_run() { # reset_run OUT URL [flags...]: one run of the trace; --checks none keeps other requests out
  local out=$1 url=$2
  shift 2
  "$replay" run --endpoint "$url/v1" --model "$MODEL" --api completions --tokenizer "$TOKENIZER" \
    --trace "$d/trace.jsonl" --timeout 1m --max-lateness 0 --checks none --metrics-url none \
    --out "$d/$out" "$@" >"$d/$out.log" 2>&1 || fail "replay run $out exited $?: $(tail -n 3 "$d/$out.log")"
}
state() { jq -r '.run.engine.cache_reset // "n/a"' "$d/$1/summary.json"; }
cached() { jq -r '.cache.cached_tokens // "n/a"' "$d/$1/summary.json"; }

reset_run warm "$LLAMA_URL"
reset_run again "$LLAMA_URL"
[[ $(cached again) -gt 0 ]] ||
  fail "without --reset-cache the repeated prompt found $(cached again) tokens cached (want > 0: the check below could not fail)"
reset_run reset "$LLAMA_URL" --reset-cache
[[ $(state reset) == reset ]] || fail "summary's cache_reset is \"$(state reset)\", want \"reset\""
[[ $(cached reset) == 0 ]] || fail "after the reset the repeated prompt found $(cached reset) tokens cached, want 0"
pass "cache_reset \"reset\"; the repeated prompt: $(cached again) of 200 tokens cached without the reset, $(cached reset) after it"

start_llama NOSAVE -np 4 -c 8192 -t 1
reset_run nosave "$NOSAVE_URL" --reset-cache
[[ $(state nosave) == "not reset: "*--slot-save-path* ]] ||
  fail "without --slot-save-path the summary says \"$(state nosave)\""
pass "without --slot-save-path: \"$(state nosave)\""

start_llama HOSTCACHE -np 4 -c 8192 -t 1 --slot-save-path /slots
reset_run hostcache "$HOSTCACHE_URL" --reset-cache
[[ $(state hostcache) == "not reset: "*"--cache-ram 0"* ]] ||
  fail "with the host-memory prompt cache on, the summary says \"$(state hostcache)\""
pass "with --cache-ram at its default: \"$(state hostcache)\""
