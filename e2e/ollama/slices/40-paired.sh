# slice paired: one paired run against two models of the same Ollama server, the small preset
# (replay-raw, d512 x 8 layers) as A and the large one (d1024) as B: every request is sent to
# both at its scheduled time with the same prompt bytes, and the per-request differences must
# say B is slower (twice the width is about four times the work per token). Sourced by e2e.sh
# (check, field, fail, work, endpoint, load_model are its).
load_model replay-large large
# Its own workload (the slice runs alone under REPLAY_E2E_SLICES=paired): 16 generated chat
# requests, each alone on the server (4 s apart), outputs capped at 12 tokens so a request takes
# a few seconds on the large model's one thread.
bin/replay gen --shape chat --seed 4 --out "$work/paired-gen.jsonl" 2>/dev/null
jq -s -c '.[:16] | map(del(.session_id, .turn)) | to_entries[]
    | .value + {timestamp: (.key * 4000), output_length: ([.value.output_length, 12] | min)}' \
  "$work/paired-gen.jsonl" >"$work/paired.jsonl"
# --max-lateness 0 as in e2e.sh's replay(): the engine computes on the client's two cores.
bin/replay run --trace "$work/paired.jsonl" --endpoint "a=$endpoint" --endpoint "b=$endpoint" \
  --model a=replay-raw --model b=replay-large --api completions --tokenizer samples/tokenizer/mistral \
  --max-prompt-tokens 256 --speed 1 --timeout 3m --max-lateness 0 --out "$work/paired" \
  >"$work/paired.log" 2>&1 || { cat "$work/paired.log" >&2; echo "e2e: paired run failed" >&2; exit 1; }
for r in paired/a paired/b; do
  check "$r: every request ok" '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0' $r
  check "$r: engine detected as ollama" '.run.engine.name == "ollama"' $r
  check "$r: behaviour checks probed, none failed" \
    '(.run.checks.results | length) > 0 and all(.run.checks.results[]; (.fail == 0) or (.skipped != null))' $r
done
verdict=$(jq -r .verdict "$work/paired/compare.json")
echo "e2e: paired verdict (A = replay-raw d512, B = replay-large d1024): $verdict"
grep -h '^behaviour check \|^\(streaming\|stop\|max_tokens\|sampling\|overload\) ' "$work/paired.log" | sed 's/^/e2e: /' || true
if [[ $(jq -r .direction "$work/paired/compare.json") != "B slower" ]]; then
  echo "FAIL: paired: the larger model is not found slower: $verdict" >&2
  fail=1
fi
if ! jq -e '.paired[] | select(.name == "e2e") | .median_diff_ms.lo > 0' "$work/paired/compare.json" >/dev/null; then
  echo "FAIL: paired: e2e's median difference interval does not exclude 0" >&2
  fail=1
fi
