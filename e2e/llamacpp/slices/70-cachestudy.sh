# slice cachestudy: `replay cache-study` against the default llama-server: 10 generated
# requests whose leading blocks recur (the first four of the three largest groups of
# replay gen's mixed shape, sessions dropped so each stands alone), 3 s apart so each is
# measured on an idle server, outputs capped at 8 tokens and prompts at 512, replayed with
# unique prefixes and then as traced, paired per request, against the trace's LRU curve marked
# at the server's KV capacity: -c 8192 tokens over its 4 slots (llama.cpp's /metrics serves no
# cache size, so it is given). llama-server keeps each slot's last prompt and reuses its longest
# common prefix (--cache-ram 0: no host-memory cache), not an LRU of blocks, so the curve's
# prediction is set beside the measured hit rate, not checked against it. Sourced by e2e.sh.
d=$work/cachestudy
"$replay" gen --shape mixed --seed 1 --out "$d/mixed.jsonl" 2>/dev/null
jq -c '{k: (.hash_ids[0]), r: (. | del(.session_id, .turn))}' "$d/mixed.jsonl" |
  jq -s -c 'group_by(.k) | map(select(length > 1)) | sort_by(-length) | .[:3] | map(.[:4]) | flatten | .[:10]
    | to_entries[] | .value.r + {timestamp: (.key * 3000), output_length: ([.value.r.output_length, 8] | min)}' \
    >"$d/shared.jsonl"
"$replay" cache-study --endpoint "$LLAMA_URL/v1" --model "$MODEL" --api completions \
  --tokenizer "$TOKENIZER" --timeout 3m --max-lateness 0 \
  --trace "$d/shared.jsonl" --max-prompt-tokens 512 --speed 1 --engine-kv-tokens 8192 \
  --out "$d/study" >"$d/study.out" 2>"$d/study.log" ||
  { rc=$?; cat "$d/study.log" >&2; fail "replay cache-study exited $rc"; }
sed 's/^/e2e: cache study: /' "$d/study.out" >&2
cs() { jq -r "$@" "$d/study/cache_study.json"; }
for arm in unique traced; do
  [[ $(jq -r '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total == 10' "$d/study/$arm/summary.json") == true ]] ||
    fail "$arm: $(jq -r '"\(.requests.ok) of \(.requests.total)"' "$d/study/$arm/summary.json") requests ok"
done
[[ $(cs '.ttft.n == 10') == true ]] || fail "$(cs .ttft.n) requests paired, not 10"
[[ $(cs '.engine_capacity.tokens == 8192 and .predicted_hit_pct != null') == true ]] ||
  fail "the capacity is not marked and predicted: $(cs -c '{engine_capacity, predicted_hit_pct}')"
[[ $(cs '.arms.traced.ttft_p50_ms < .arms.unique.ttft_p50_ms') == true ]] ||
  fail "TTFT p50 as traced $(cs .arms.traced.ttft_p50_ms) ms is not below unique prefixes $(cs .arms.unique.ttft_p50_ms) ms"
[[ -s $d/study/cache_study.html ]] || fail "no cache_study.html"
pass "$(cs .verdict)"
