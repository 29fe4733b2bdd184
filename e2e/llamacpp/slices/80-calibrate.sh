# slice calibrate: `replay calibrate` measures the default llama-server one request at a time
# at five prompt lengths (fresh, then the same prompt again with its prefix in the slot's
# cache), fits TTFT(prompt tokens) and prints the curve. Sourced by e2e.sh.
d=$work/calibrate
"$replay" calibrate --endpoint "$LLAMA_URL/v1" --model "$MODEL" --api completions \
  --tokenizer "$TOKENIZER" --timeout 3m --max-lateness 0 \
  --prompt-tokens 32,256,512,1024,1536 --output-tokens 4 --repeats 1 --warmup 1 --out "$d/calib" \
  >"$d/calib.log" 2>&1 || { rc=$?; cat "$d/calib.log" >&2; fail "replay calibrate exited $rc"; }
cal=$d/calib/calibration.json
cc() { jq -r "$@" "$cal"; }
[[ $(cc '([.points[] | select(.kind == "uncached")] | length) == 5 and ([.points[] | select(.kind == "cached")] | length) == 5') == true ]] ||
  fail "not five fresh and five cached points: $(cc -c '[.points[] | {prompt_tokens, kind}]')"
[[ $(cc '.ttft.coef[1] > 0') == true ]] || fail "TTFT does not grow with the prompt: coefficients $(cc -c .ttft.coef)"
[[ $(cc '([.points[] | select(.prompt_tokens >= 1500 and .kind == "cached") | .ttft_ms] | min) < ([.points[] | select(.prompt_tokens >= 1500 and .kind == "uncached") | .ttft_ms] | max)') == true ]] ||
  fail "the longest prompt is not faster with its prefix cached: $(cc -c '[.points[] | select(.prompt_tokens >= 1500) | {kind, ttft_ms}]')"
[[ -s $d/calib/calibration.html ]] || fail "no calibration.html"
grep -v '^replay' "$d/calib.log" | sed 's/^/e2e: calibrate: /' >&2 || true
pass "TTFT(prompt tokens) fitted over 5 lengths, fresh and cached: $(cc -r '.ttft | "coefficients \(.coef | map(. * 1000 | round / 1000)), R² \(.r2 // "n/a")"')"
