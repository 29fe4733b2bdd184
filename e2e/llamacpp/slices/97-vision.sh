# slice vision: replay's image counting against llama-server's own, one server per projector type
# (setup.sh's VISION_MODELS: a folder per type, model.gguf + mmproj.gguf from mkmodel --mmproj,
# the tokenizer folder with the config.json and preprocessor_config.json replay's image rule
# reads). visionlog writes a request log of 16 requests (chat, Responses and Messages) holding
# 0 to 4 PNG images, 19 in all (data URLs; base64 sources on Messages; 20×20 to 4000×3000 and
# 3000×100; alone, before, after and between text parts; one image repeated), replayed by
# `replay run --format openai-log --tokenizer FOLDER`, each to the API it was logged against
# (llama-server turns a Responses or Messages request into chat's). Each server runs
# with -np 1 (one request at a time) and -lv 4, at which its log says, per image, "decoding
# image batch K/N, n_tokens_batch = T" and "image decoded", and per request "tokens: text = X,
# total = Y". Checked, per projector:
#   - every request ok; every image decoded (each request matched to a request the server
#     served with as many images, by its total; one first batch an image);
#   - each image's tokens at the server = replay's rule for its size (visionlog count: the
#     folder's rule as replay run chooses it), less the text tokens the rule wraps it in
#     (Qwen2-VL's <|vision_start|> and <|vision_end|>, which the server counts as text);
#   - each request's prompt tokens at the server (usage) = its total in the server's log, and
#     = replay's target + the difference in text tokens only;
#   - replay's tokenize cross-check: the server's own count of each prompt's text (the chat
#     template rendered, the images left out) equals replay's, every request.
# What is true of the text, measured here (llama.cpp 0.7.0, b11669):
#   mlp (LLaVA-1.5, 576 tokens an image, whatever its size, as Hugging Face counts): llama.cpp
#     (mtmd_tokenize) tokenizes the text between images as separate pieces, and a
#     SentencePiece vocabulary (add_space_prefix, as Llama-2/Vicuna/Mistral's, the tokenizers of
#     real LLaVA-1.5 checkpoints) puts a "▁" before each piece: " [/INST]" after an image is
#     "▁▁ [ / INST ]" (5) where the whole prompt has "▁[ / INST ]" (4); " this" is "▁▁ this"
#     (2) where it was "▁this" (1). Counted whole, as a model's processor counts, the server's
#     count is replay's + 1 to 3 tokens an image, all of them text. Replay knows the endpoint
#     is llama.cpp (engine detection) and counts the text piece by piece as it does, so every
#     request is exact; the slice checks that the run said so, and, against the probe's server,
#     that the same log counted whole (--engine generic: a processor's count) is not 100% exact.
#   qwen2vl_merger (Qwen2-VL, tokens by size): 100% exact, every request, image and text. The
#     wrappers mtmd puts around the image are special tokens, and a byte-level BPE adds nothing
#     at the start of a piece, so tokenizing the pieces apart changes no count here (it could
#     where an image sits between two letters of one word: not a layout replay sends). What
#     differs from Hugging Face is the size range: llama.cpp's loader sets 8..4096 merged
#     tokens (min_pixels 6272, max_pixels 3211264; clip.cpp load_hparams,
#     set_limit_image_tokens(8, 4096)) whatever the checkpoint's preprocessor_config.json says
#     (Qwen2-VL-2B/7B-Instruct: 3136..12845056; the processor's own default max 1003520), and
#     the folder here states that range (mkmodel's QwenMinPixels/QwenMaxPixels), so replay's
#     rule is the server's: llama.cpp's resize is smart_resize with that range to the token
#     (all 10 images). Where the ranges differ, measured on this server: 20×20 is 9 pads (HF with
#     the checkpoint's range: 4), 64×48 12 (HF 4); 2000×2000 4096, in two batches of 2048 (HF
#     checkpoint 5041, HF default 1225); 1400×1000 1800 (HF checkpoint 1800, HF default 1260). Against a real Qwen2-VL GGUF, a tokenizer folder
#     with the checkpoint's own preprocessor_config.json counts such images as HF does, not as
#     the server does (the probe of issue 46 measures the server's count).
d=$work/vision
vl=$d/visionlog
(cd "$here" && go build -o "$vl" ./visionlog) || fail "go build ./visionlog"
"$vl" log "$d/log.jsonl"
[[ -n ${VISION_MODELS:-} && -d $LLAMA_ROOT$VISION_MODELS ]] ||
  fail "setup.sh printed no VISION_MODELS folder (VISION_MODELS=${VISION_MODELS:-})"
nreq=$(wc -l <"$d/log.jsonl")
nimg=$(awk '{ n += $2 } END { print n }' "$d/log.jsonl.images")
types=0 ran=""
for folder in "$LLAMA_ROOT$VISION_MODELS"/*/; do
  folder=${folder%/}
  type=$(basename "$folder")
  v=$d/$type
  mkdir -p "$v"
  for f in model.gguf mmproj.gguf tokenizer.json tokenizer_config.json config.json preprocessor_config.json; do
    [[ -s $folder/$f ]] || fail "$type: $folder has no $f"
  done
  start_llama VIS -m "$VISION_MODELS/$type/model.gguf" --mmproj "$VISION_MODELS/$type/mmproj.gguf" \
    -np 1 -c 16384 -t 1 -lv 4 --cache-ram 0 --metrics
  vmodel=$(curl -sf "$VIS_URL/v1/models" | jq -r '.data[0].id')
  # --min-exact 0: the exactness is judged here (below), per projector. ignore_eos: the model's
  # </s> is reachable (setup.sh), and an answer that ends at its first token has no content.
  "$replay" run --endpoint "$VIS_URL/v1" --model "$vmodel" --api chat --tokenizer "$folder" \
    --trace "$d/log.jsonl" --format openai-log --speed 4 --max-lateness 0 --min-exact 0 \
    --extra-body '{"ignore_eos":true,"logit_bias":[[0,false],[1,false],[2,false]]}' \
    --checks none --probe none --timeout 5m --out "$v/run" >"$v/run.log" 2>&1 ||
    { rc=$?; cat "$v/run.log" >&2; fail "$type: replay run exited $rc"; }
  kill "$VIS_PID" 2>/dev/null || true
  wait "$VIS_PID" 2>/dev/null || true
  rf() { jq -r "$@" "$v/run/summary.json"; }
  [[ $(rf --argjson n "$nreq" '.requests.failed == 0 and .requests.ok == $n and .requests.total == $n') == true ]] ||
    fail "$type: $(rf .requests.ok) of $(rf .requests.total) requests ok (want $nreq), errors $(rf -c .errors) $(rf -c .error_samples)"

  # The server's log: per request it served, "TOTAL TEXT IMAGE..." (its prompt tokens, the text
  # among them, and each image's: the tokens of its batches, an image starting at batch 1). A
  # request without images is one of replay's probes (every logged one has some). The server
  # serves the requests in the order their images are ready (a large image is preprocessed
  # in the HTTP handler, after a small one behind it), so they are matched by total below.
  sed -n -e 's/.*tokens: text = \([0-9]*\), total = \([0-9]*\).*/T \1 \2/p' \
    -e 's/.*decoding image batch \([0-9]*\)\/[0-9]*, n_tokens_batch = \([0-9]*\).*/B \1 \2/p' "$VIS_LOG" |
    awk '$1 == "B" && $2 == 1 { if (n) imgs = imgs " " n; n = $3; next } $1 == "B" { n += $3; next }
         { if (n) imgs = imgs " " n; n = 0; if (imgs != "") print $3, $2 imgs; imgs = "" }' >"$v/server.txt"
  decoded=$(grep -c 'image decoded' "$VIS_LOG" || true)
  served=$(awk '{ n += NF - 2 } END { print n + 0 }' "$v/server.txt")
  # At least the log's images: a probe of replay's that sends images would add its own.
  ((served >= nimg)) || fail "$type: the server's log shows $served images decoded ($decoded batches), $nimg sent (log: $VIS_LOG)"
  mapfile -t srv <"$v/server.txt"
  "$vl" rows "$v/run" >"$v/rows.txt"

  # Request by request: the log's images, replay's count of each, the server's.
  report=() sizes_seen="" delta_total=0
  while read -r ts n sizes <&4; do
    read -r rts target usage <&5 || fail "$type: fewer rows than requests"
    [[ $rts == "$ts" ]] || fail "$type: row at $rts, request at $ts"
    if ((n == 0)); then # text alone: exact by usage, nothing to match in the server's images
      ((usage == target)) || fail "$type: the request at $ts (no image): usage $usage, replay $target"
      report+=("$((ts / 1000000000)):text usage $usage replay $target")
      continue
    fi
    rec=""
    for k in "${!srv[@]}"; do
      read -r total text imgs <<<"${srv[k]}"
      if ((total == usage)) && [[ $(wc -w <<<"$imgs") == "$n" ]]; then
        rec=${srv[k]}
        unset 'srv[k]'
        break
      fi
    done
    [[ -n $rec ]] || fail "$type: the request at $ts ($n images, usage $usage): no request of that total and images in the server's log ($v/server.txt)"
    read -r total text imgs <<<"$rec"
    got_imgs=($imgs)
    ours=0 wrap_total=0 srv_img=0 shown="" i=0
    for s in $sizes; do
      rule="" wrap=""
      read -r rule wrap < <("$vl" count "$folder" "$s") || true
      [[ -n ${wrap:-} ]] || fail "$type: visionlog count $folder $s gave no count"
      got=${got_imgs[i]}
      i=$((i + 1))
      ((got == rule - wrap)) ||
        fail "$type: a $s image: the server spent $got tokens on it, replay's rule (visionlog count) $rule, $wrap of them text"
      ours=$((ours + rule)) wrap_total=$((wrap_total + wrap)) srv_img=$((srv_img + got))
      shown+=" $s:$got"
      sizes_seen+=" $got"
    done
    ((total == text + srv_img)) || fail "$type: the request at $ts: text $text + images $srv_img is not its total $total"
    ours_text=$((target - ours + wrap_total)) # replay's text tokens, as the server counts text (wrappers in)
    delta=$((text - ours_text))
    ((usage == target + delta)) || fail "$type: the request at $ts: usage $usage, replay $target, text difference $delta"
    ((delta == 0)) || fail "$type: the request at $ts: the server's text is $delta tokens over replay's (want 0)"
    delta_total=$((delta_total + delta))
    report+=("$((ts / 1000000000)):${shown# } usage $usage replay $target")
  done 4<"$d/log.jsonl.images" 5<"$v/rows.txt"
  # replay's tokenize cross-check (the server's /apply-template and /tokenize of each prompt's
  # text, images out): the text as replay counts it, every request.
  [[ $(rf --argjson n "$nreq" '.run.tokenize_check.checked == $n and .run.tokenize_check.equal == $n') == true ]] ||
    fail "$type: tokenize cross-check $(rf -c .run.tokenize_check) (want all $nreq equal)"
  distinct=$(tr ' ' '\n' <<<"$sizes_seen" | sed '/^$/d' | sort -u | tr '\n' ' ')
  exact=$(rf .fidelity.prompt_tokens_exact_pct)
  grep -q 'is llama.cpp (detected), which tokenizes the text between' "$v/run.log" ||
    fail "$type: the run did not say it counts the text as llama.cpp does (log: $v/run.log)"
  [[ $exact == 100 ]] || fail "$type: prompt tokens $exact% exact by the server's usage (want 100)"
  # The media as the server counted them (each row's usage less the text built) are the rule's.
  [[ $(rf '.media.server_counted == .media.requests and .media.server_media_tokens == .media.rule_media_tokens') == true ]] ||
    fail "$type: summary media $(rf -c '.media | {requests, server_counted, server_media_tokens, rule_media_tokens}') (want every media request counted, the server's media tokens the rule's)"
  case $type in
  mlp)
    [[ $distinct == "576 " ]] || fail "$type: image token counts $distinct (want 576 whatever the size)" ;;
  *)
    (($(wc -w <<<"$distinct") >= 4)) || fail "$type: image token counts $distinct: the count should follow the size" ;;
  esac
  # The same log with replay's probe (--probe auto, the default against an endpoint): before
  # the prompts are built it asks the server, for each image size, a request with two images
  # and its twin with one, and builds with the difference where it is not the rule's. On a
  # fresh server (the log above is the first run's alone). Both projectors count as the rule
  # (LLaVA's 576: the twins' text is the same, so the "▁" of the piece after an image is in
  # neither difference), and the run stays 100%. Then, on the same server, the log counted
  # whole (--engine generic, --probe none): LLaVA's text misses by the pieces' "▁"s, Qwen2-VL's
  # byte-level vocabulary adds none.
  start_llama VIS -m "$VISION_MODELS/$type/model.gguf" --mmproj "$VISION_MODELS/$type/mmproj.gguf" \
    -np 1 -c 16384 -t 1 --cache-ram 0
  "$replay" run --endpoint "$VIS_URL/v1" --model "$vmodel" --api chat --tokenizer "$folder" \
    --trace "$d/log.jsonl" --format openai-log --speed 4 --max-lateness 0 --min-exact 0 \
    --extra-body '{"ignore_eos":true,"logit_bias":[[0,false],[1,false],[2,false]]}' \
    --checks none --tokenize-check none --timeout 5m --out "$v/probed" >"$v/probed.log" 2>&1 ||
    { rc=$?; cat "$v/probed.log" >&2; fail "$type: replay run --probe auto exited $rc"; }
  "$replay" run --endpoint "$VIS_URL/v1" --model "$vmodel" --api chat --tokenizer "$folder" \
    --trace "$d/log.jsonl" --format openai-log --speed 4 --max-lateness 0 --min-exact 0 \
    --extra-body '{"ignore_eos":true,"logit_bias":[[0,false],[1,false],[2,false]]}' \
    --checks none --tokenize-check none --probe none --engine generic --timeout 5m --out "$v/whole" >"$v/whole.log" 2>&1 ||
    { rc=$?; cat "$v/whole.log" >&2; fail "$type: replay run --engine generic exited $rc"; }
  kill "$VIS_PID" 2>/dev/null || true
  wait "$VIS_PID" 2>/dev/null || true
  said=$(grep 'replay: probe: ' "$v/probed.log" || true)
  probed=$(jq -r .fidelity.prompt_tokens_exact_pct "$v/probed/summary.json")
  whole=$(jq -r .fidelity.prompt_tokens_exact_pct "$v/whole/summary.json")
  [[ $said == *"image sizes as "*" does"* ]] || fail "$type: the probe said: ${said:-nothing} (want the server counting as the rule)"
  [[ $probed == 100 ]] || fail "$type: prompt tokens $probed% exact with the probe (want 100)"
  case $type in
  mlp)
    awk -v w="$whole" 'BEGIN { exit !(w < 100) }' ||
      fail "$type: counted whole (--engine generic), prompt tokens $whole% exact (want below 100: the server counts the pieces after an image with a \"▁\" each)" ;;
  *)
    [[ $whole == 100 ]] || fail "$type: counted whole (--engine generic), prompt tokens $whole% exact (want 100: a byte-level vocabulary adds nothing to a piece)" ;;
  esac
  pass "$type: the probe: ${said#replay: probe: }; prompt tokens $probed% exact with it, $exact% by the rule alone, $whole% counted whole (--engine generic)"
  echo "vision $type: ${report[*]}" >&2
  pass "$type: $nreq requests ok, $nimg images decoded by the server, each with replay's tokens for its size (distinct counts: ${distinct% }); prompt tokens $exact% exact by usage, the server's text $delta_total tokens over replay's in all; tokenize cross-check $(rf .run.tokenize_check.equal) of $(rf .run.tokenize_check.checked) equal"
  types=$((types + 1))
  ran+=" $type"
done
((types > 0)) || fail "no projector folders in $LLAMA_ROOT$VISION_MODELS"
for want in mlp qwen2vl_merger; do # setup.sh makes both: a fixed count and one that follows the size
  [[ " $ran " == *" $want "* ]] || fail "projector $want did not run (ran:$ran)"
done
