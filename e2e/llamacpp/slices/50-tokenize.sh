# 50-tokenize: replay's tokenize cross-check against llama-server on both APIs must find every
# checked prompt's count equal to the server's own (/tokenize; chat through /apply-template).
# The GGUF has no chat template, so llama-server would render chat with its ChatML fallback
# while replay renders chat.DefaultTemplate (the Mistral tokenizer folder has none): the two
# differ by the templates' tokens (about 20 a prompt), which is what this check is there to
# catch. So the chat run goes to a second server given replay's template (chat/template.go's
# DefaultTemplate, e2e.sh's replay_template), a file inside the chroot as llama-server must read it.
d=$work/tokenize
mkdir -p "$d"
start_llama TOKCHAT --jinja --chat-template-file "$(replay_template)"
"$replay" gen --out "$d/trace.jsonl" --shape chat --duration 20s --rate 1 --seed 50 >"$d/gen.log" 2>&1 ||
  { cat "$d/gen.log" >&2; fail "replay gen exited non-zero"; }
for api in completions chat; do
  url=$LLAMA_URL
  [[ $api == chat ]] && url=$TOKCHAT_URL
  "$replay" run --endpoint "$url/v1" --model "$MODEL" --api "$api" --tokenizer "$TOKENIZER" \
    --trace "$d/trace.jsonl" --limit 12 --max-prompt-tokens 1500 --max-lateness 0 \
    --timeout 3m --tokenize-check on --out "$d/$api" >"$d/$api.log" 2>&1 ||
    { cat "$d/$api.log" >&2; fail "replay run --api $api exited non-zero"; }
  line=$(grep -o 'tokenize cross-check: .*' "$d/$api.log" || true)
  checked=$(jq -r '.run.tokenize_check.checked // 0' "$d/$api/summary.json")
  equal=$(jq -r '.run.tokenize_check.equal // 0' "$d/$api/summary.json")
  if [[ $checked -eq 0 || $equal -ne $checked ]]; then
    fail "$api: $line"
  fi
  pass "$api: $line ($((100 * equal / checked))% equal)"
done
