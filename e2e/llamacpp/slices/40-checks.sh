# slice checks: every basic behaviour check (streaming, stop, max_tokens, sampling) passes
# against llama-server on both APIs. llama-server closes every connection that carried a
# streamed answer right after its last chunk, without "Connection: close"; before the resend
# rule (client/resend.go) the probe after a streamed one failed with "unexpected EOF". The
# run's own requests on the same closing connections must all be ok too. Sourced by e2e.sh
# (replay, work, LLAMA_URL, MODEL, TOKENIZER, pass, fail are its).
d=$work/checks
mkdir -p "$d"
"$replay" gen --shape chat --seed 2 --duration 20s --rate 1 --out "$d/chat.jsonl" 2>/dev/null
for api in completions chat; do
  "$replay" run --endpoint "$LLAMA_URL/v1" --model "$MODEL" --api "$api" --tokenizer "$TOKENIZER" \
    --trace "$d/chat.jsonl" --limit 6 --max-prompt-tokens 512 --speed 4 --timeout 3m \
    --max-lateness 0 --checks basic --require checks --out "$d/$api" >"$d/$api.log" 2>&1 ||
    { rc=$?; cat "$d/$api.log" >&2; fail "$api: replay run --checks basic --require checks exited $rc"; }
  s=$d/$api/summary.json
  failed=$(jq -r '[.run.checks.results[] | select(.skipped == null and (.fail > 0 or .pass == 0)) | .name] | join(", ")' "$s")
  passed=$(jq -r '[.run.checks.results[] | select(.skipped == null and .fail == 0 and .pass > 0) | "\(.name) \(.pass)/\(.pass)"] | join(", ")' "$s")
  [[ -z $failed && -n $passed ]] || { grep -A12 '^behaviour check' "$d/$api.log" >&2; fail "$api: checks not passed: ${failed:-none ran}"; }
  if grep -q 'EOF' "$d/$api.log"; then grep 'EOF' "$d/$api.log" >&2; fail "$api: an EOF in the run's output"; fi
  [[ $(jq -r '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0' "$s") == true ]] ||
    fail "$api: $(jq -r .requests.ok "$s") of $(jq -r .requests.total "$s") requests ok"
  pass "$api: every basic check passed ($passed); $(jq -r .requests.ok "$s")/$(jq -r .requests.total "$s") requests ok"
done
