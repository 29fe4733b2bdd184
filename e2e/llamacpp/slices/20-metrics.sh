# slice metrics: replay reads llama.cpp's /metrics. Sourced by e2e.sh (E2E-CONTRACT: root,
# replay, work, LLAMA_URL, MODEL, TOKENIZER; pass, fail).
# A prefix-heavy trace (replay gen --shape agent: tool-definition system prompts shared by
# every task, and steps that extend their task's prompt), prompts capped at 1,024 tokens and
# outputs at 24 so the 4 slots of the default server keep up, bursty enough at --rate 2 that
# more requests are in flight than -np 4 has slots. Checked: the hit rate from /metrics
# (prompt_tokens_cached_total over it plus prompt_tokens_total, which leaves cached tokens
# out) is within 1 point of usage's (prompt_tokens_details.cached_tokens over prompt tokens)
# over the run, and server_metrics.jsonl saw requests processing and requests deferred.
d=$work/metrics
mkdir -p "$d"
"$replay" gen --shape agent --duration 30s --rate 2 --seed 3 --out "$d/agent.jsonl" >"$d/gen.log" 2>&1 ||
  fail "replay gen exited non-zero: $(tail -n 2 "$d/gen.log")"
jq -c '.output_length = ([.output_length, 24] | min)' "$d/agent.jsonl" >"$d/trace.jsonl"
# --checks none: the behaviour checks are slice 40's; --metrics-interval 250ms: the gauges are
# read often enough to catch the bursts' queue.
"$replay" run --endpoint "$LLAMA_URL/v1" --model "$MODEL" --api completions --tokenizer "$TOKENIZER" \
  --trace "$d/trace.jsonl" --max-prompt-tokens 1024 --timeout 3m --max-lateness 0 --checks none \
  --metrics-interval 250ms --out "$d/run" >"$d/run.log" 2>&1 ||
  fail "replay run exited $?: $(tail -n 3 "$d/run.log")"
s=$d/run/summary.json
engine=$(jq -r '.run.engine.name // "n/a"' "$s")
usage=$(jq -r '.cache.hit_pct // "n/a"' "$s")
server=$(jq -r '.cache.server_hit_pct // "n/a"' "$s")
[[ $server != n/a && $usage != n/a ]] ||
  fail "hit rate from /metrics $server%, from usage $usage% (engine $engine; scrapes: $(jq -c '.cache.server' "$s"))"
jq -en --argjson u "$usage" --argjson m "$server" '($u - $m) | fabs <= 1' >/dev/null ||
  fail "hit rate from /metrics $server% is more than 1 point from usage's $usage%"
pass "hit rate from /metrics $server% ($(jq -r '.cache.server.hit_tokens' "$s") of $(jq -r '.cache.server.queried_tokens' "$s") prompt tokens), from usage $usage% ($(jq -r '.cache.cached_tokens' "$s") of $(jq -r '.cache.prompt_tokens' "$s")), $(jq -r '.requests.ok' "$s")/$(jq -r '.requests.total' "$s") requests ok"
read -r running deferred samples < <(jq -rs '[(map(.["requests_running"] // 0) | max),
  (map(.["requests_waiting"] // 0) | max), length] | @tsv' "$d/run/server_metrics.jsonl")
((running > 0 && deferred > 0)) ||
  fail "server_metrics.jsonl ($samples scrapes): requests processing at most $running, deferred at most $deferred"
pass "server_metrics.jsonl ($samples scrapes): requests processing up to $running, deferred up to $deferred"
# The samples are kept under neutral keys, none under vLLM's names, and the summary names
# the llama.cpp series its hit rate came from.
vkeys=$(jq -rs '[.[] | keys[] | select(startswith("vllm:"))] | unique | join(", ")' "$d/run/server_metrics.jsonl")
[[ -z $vkeys ]] || fail "server_metrics.jsonl of a llama.cpp run holds vLLM's names: $vkeys"
src=$(jq -r '.cache.server.source // ""' "$s")
[[ $src == *llamacpp:prompt_tokens_cached_total* ]] || fail "cache.server.source is \"$src\", want llama.cpp's series"
pass "server_metrics.jsonl keys: $(jq -rs '[.[] | keys[]] | unique | join(" ")' "$d/run/server_metrics.jsonl"); source: $src"
