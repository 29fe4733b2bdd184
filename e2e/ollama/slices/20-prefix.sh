# slice prefix: the prefix cache lowers TTFT for requests sharing a prefix. Sourced by e2e.sh.
# 4. Prefix cache: generated requests whose leading blocks recur (the first four of the three
# largest groups, 10 requests: 3 first sightings, 7 repeats, sessions dropped so each stands
# alone), each group's requests back to back so a
# repeat finds its prefix still in one of the 4 slots, spaced 12 s apart so each is measured on
# an idle server (this cgo build prefills only ~50-100 tokens/s on one thread); outputs capped
# at 8 tokens.
jq -c '{k: (.hash_ids[0]), r: (. | del(.session_id, .turn))}' "$work/mixed.jsonl" |
  jq -s -c 'group_by(.k) | map(select(length > 1)) | sort_by(-length) | .[:3] | map(.[:4]) | flatten | .[:10]
    | to_entries[] | .value.r + {timestamp: (.key * 12000), output_length: ([.value.r.output_length, 8] | min)}' \
    >"$work/shared.jsonl"
pfx=(--trace "$work/shared.jsonl" --max-prompt-tokens 512 --speed 1)
replay cached replay-raw completions "${pfx[@]}"
replay unique replay-raw completions "${pfx[@]}" --prefix-mode unique
for r in cached unique; do
  check "$r: every request ok" '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0' $r
done
cached=$(field cached .ttft_ms.p50)
unique=$(field unique .ttft_ms.p50)
if ! jq -en --argjson c "$cached" --argjson u "$unique" '$c < $u' >/dev/null 2>&1; then
  echo "FAIL: TTFT p50 with the prefix cache ($cached ms) is not below unique prefixes ($unique ms)" >&2
  fail=1
fi


printf '\n%-34s %12s %12s %12s %12s\n' "real engine: ollama $(basename "$(dirname "$OLLAMA_BIN")")" completions chat cached unique
printf '%-34s %12s %12s %12s %12s\n' "requests ok/total" \
  "$(field completions .requests.ok)/$(field completions .requests.total)" "$(field chat .requests.ok)/$(field chat .requests.total)" \
  "$(field cached .requests.ok)/$(field cached .requests.total)" "$(field unique .requests.ok)/$(field unique .requests.total)"
printf '%-34s %12s %12s %12s %12s\n' "prompt-token exactness %" \
  "$(field completions .fidelity.prompt_tokens_exact_pct)" "$(field chat .fidelity.prompt_tokens_exact_pct)" \
  "$(field cached .fidelity.prompt_tokens_exact_pct)" "$(field unique .fidelity.prompt_tokens_exact_pct)"
printf '%-34s %12s %12s %12s %12s\n' "output-token exactness %" \
  "$(field completions .fidelity.output_tokens_exact_pct)" "$(field chat .fidelity.output_tokens_exact_pct)" \
  "$(field cached .fidelity.output_tokens_exact_pct)" "$(field unique .fidelity.output_tokens_exact_pct)"
printf '%-34s %12s %12s %12s %12s\n' "TTFT p50 ms" \
  "$(field completions .ttft_ms.p50)" "$(field chat .ttft_ms.p50)" "$cached" "$unique"
echo "TTFT p50 with the prefix cache: $cached ms vs unique prefixes: $unique ms"
