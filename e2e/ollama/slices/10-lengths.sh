# slice lengths: exact prompt and output lengths through both APIs, and the engine as replay
# sees it. Sourced by e2e.sh (replay, check, field, fail, work, endpoint are its).
# 3. Exact lengths, through both APIs. The workload is generated here (the repository holds no
# copy of a public trace); the same seed gives the same file everywhere.
bin/replay gen --shape chat --seed 1 --out "$work/chat.jsonl" 2>/dev/null
bin/replay gen --shape mixed --seed 1 --out "$work/mixed.jsonl" 2>/dev/null
fid=(--trace "$work/chat.jsonl" --limit 8 --max-prompt-tokens 1024 --speed 4 --on-error skip)
replay completions replay-raw completions "${fid[@]}"
replay chat replay-chat chat "${fid[@]}"
# The engine as replay sees it: detected from the server, what forcing and metrics it allows,
# and no warning on stderr (Ollama serves no /metrics and has no ignore_eos: said, not warned).
check "completions: engine detected as ollama" '.run.engine.name == "ollama"' completions
grep -h 'replay: engine:\|server metrics:' "$work/completions.log" | sed 's/^/e2e: /' || true
if grep -q 'warning' "$work/completions.log"; then
  echo "FAIL: completions: a warning on stderr:" >&2
  grep 'warning' "$work/completions.log" >&2
  fail=1
fi
for r in completions chat; do
  check "$r: every request ok" '.requests.failed == 0 and .requests.ok == .requests.total and .requests.total > 0' $r
  check "$r: prompt tokens exact" '.fidelity.prompt_tokens_exact_pct == 100' $r
  check "$r: output tokens exact" '.fidelity.output_tokens_exact_pct == 100' $r
done

