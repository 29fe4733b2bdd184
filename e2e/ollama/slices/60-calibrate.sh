# slice calibrate: replay calibrate measures the small model one request at a time at a few
# prompt lengths (fresh, then the same prompt again with its prefix in Ollama's slot cache),
# fits TTFT(prompt tokens) and prints the curve. Sourced by e2e.sh.
# Five lengths (enough to judge a quadratic), one repeat, 4 output tokens: this cgo build prefills slowly on one thread.
bin/replay calibrate --endpoint "$endpoint" --model replay-raw --api completions \
  --tokenizer samples/tokenizer/mistral --timeout 3m --max-lateness 0 \
  --prompt-tokens 32,128,256,384,512 --output-tokens 4 --repeats 1 --warmup 1 --out "$work/calib" \
  >"$work/calib.log" 2>&1 || { cat "$work/calib.log" >&2; echo "e2e: replay calibrate failed" >&2; exit 1; }
cal=$work/calib/calibration.json
calcheck() { # calcheck NAME CONDITION-IN-JQ
  if [[ $(jq -r "$2" "$cal") != true ]]; then
    echo "FAIL: calibrate: $1 ($2)" >&2
    fail=1
  fi
}
calcheck "five fresh and five cached points" '([.points[] | select(.kind == "uncached")] | length) == 5 and ([.points[] | select(.kind == "cached")] | length) == 5'
calcheck "TTFT grows with the prompt" '.ttft.coef[1] > 0'
calcheck "the longest prompt is faster with its prefix cached" \
  '([.points[] | select(.prompt_tokens >= 500 and .kind == "cached") | .ttft_ms] | min) < ([.points[] | select(.prompt_tokens >= 500 and .kind == "uncached") | .ttft_ms] | max)'
[[ -s $work/calib/calibration.html ]] || { echo "FAIL: calibrate: no calibration.html" >&2; fail=1; }
echo
echo "calibration of replay-raw (ollama, one request at a time):"
grep -v "^replay" "$work/calib.log" || true
