# slice cachestudy: the prefix slice's question answered by `replay cache-study` in one command:
# the same 10 requests (20-prefix.sh's trace: the first four of the three largest groups of
# recurring leading blocks, 12 s apart, outputs capped at 8 tokens, prompts at 512) replayed
# with unique prefixes, then as traced, paired per request, with the trace's LRU curve.
# Ollama serves no /metrics, so its KV capacity is given: OLLAMA_NUM_PARALLEL=4 slots of
# num_ctx 4096 (e2e.sh). Ollama keeps each slot's last prompt rather than an LRU of blocks, so
# the curve's prediction is a reference here, not a check. Sourced by e2e.sh.
[[ -s $work/mixed.jsonl ]] || bin/replay gen --shape mixed --seed 1 --out "$work/mixed.jsonl" 2>/dev/null
jq -c '{k: (.hash_ids[0]), r: (. | del(.session_id, .turn))}' "$work/mixed.jsonl" |
  jq -s -c 'group_by(.k) | map(select(length > 1)) | sort_by(-length) | .[:3] | map(.[:4]) | flatten | .[:10]
    | to_entries[] | .value.r + {timestamp: (.key * 12000), output_length: ([.value.r.output_length, 8] | min)}' \
    >"$work/study-shared.jsonl"
bin/replay cache-study --endpoint "$endpoint" --model replay-raw --api completions \
  --tokenizer samples/tokenizer/mistral --timeout 3m --max-lateness 0 \
  --trace "$work/study-shared.jsonl" --max-prompt-tokens 512 --speed 1 --engine-kv-tokens $((4 * 4096)) \
  --out "$work/study" >"$work/study.out" 2>"$work/study.log" ||
  { cat "$work/study.log" >&2; echo "e2e: replay cache-study failed" >&2; exit 1; }
echo "cache study against ollama (verdict, as replay cache-study prints it):"
sed 's/^/  /' "$work/study.out"
for r in study/unique study/traced; do
  check "$r: every request ok" '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total == 10' $r
done
study_check() { # study_check NAME CONDITION-IN-JQ: on cache_study.json
  if [[ $(jq -r "$2" "$work/study/cache_study.json") != true ]]; then
    echo "FAIL: cache study: $1 ($2)" >&2
    fail=1
  fi
}
study_check "10 requests paired" '.ttft.n == 10'
study_check "the verdict is written" '(.verdict | startswith("prefix caching saved") or startswith("prefill tokens saved"))'
study_check "the capacity is marked and predicted" '.engine_capacity.tokens == 16384 and .predicted_hit_pct != null'
study_check "TTFT p50 as traced below unique prefixes" '.arms.traced.ttft_p50_ms < .arms.unique.ttft_p50_ms'
[[ -s $work/study/cache_study.html ]] || { echo "FAIL: cache study: no cache_study.html" >&2; fail=1; }
