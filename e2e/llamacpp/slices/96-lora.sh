# slice lora: a request log of three logged models, two of them LoRA adapters on one base,
# replayed with --model-map against llama-server serving the e2e model with setup.sh's two
# random-weight adapters (mkmodel --lora: support.gguf and sql.gguf, loaded with
# --lora support.gguf,sql.gguf --lora-init-without-apply). replay reads the adapters' ids from
# GET /lora-adapters at connect time and sends each request "model": the base and "lora": every
# listed id, its own adapter's at scale 1.0 and the others at 0.0 (all at 0.0 for the base: this
# build applies its global scales, 1.0 as /lora-adapters shows them even with
# --lora-init-without-apply, to a request whose lora is absent or [], so both adapters would
# serve a base request otherwise; measured here, see below).
#
# How the adapter of each request is checked, from what the server exposes: GET /slots, whose
# entry for each slot holds its last task's id and params, params.lora among them (the ids
# and scales the request ran with) and params.max_tokens. Each log line asks a length of its
# own (33 + its index, replay forces it with ignore_eos, so it is sent as max_tokens), so a task
# seen at /slots names the log line it served; /slots is polled every 20 ms while replay runs
# (requests 0.4 s apart, four slots taken in turn, -sps 0 turning off the choice of a slot by
# prompt similarity: a task stays listed until its slot's next task, four requests later, about
# 1.6 s; with two slots chosen by similarity every request went to one slot, and one poll in
# 67 missed a task of 0.4 s on the two shared cores). Not the
# log: at -lv 4 it says only "clearing cache for lora change. 0 loras -> 1 loras" per slot,
# without ids; not /metrics: no per-adapter series. Beside it, the measurable output difference
# under greedy decoding: one fixed prompt at temperature 0 answered with support, sql and
# neither (explicit 0.0 scales) differs in each pair, so the adapters do change the model.
# The check tells dialects apart: replay run with --engine generic against this server (the
# adapter's name sent as the model, no lora field) left every task's params.lora [] at /slots
# (measured once by hand, 9 requests), which fails it.
# Checked: every request ok; every logged line seen at /slots with its mapped adapter at scale 1
# and the other at 0 (the base's with both at 0); prompt tokens 100% exact by the server's usage; summary.json's
# models section has the two adapters and the base with their counts; a map naming an adapter
# the server did not load stops the run before the first send, naming the adapters it lists.
# Sourced by e2e.sh.
d=$work/lora
preset=${MODEL_GGUF#/models/replay-}
preset=${preset%-eos-chat-q8.gguf}
lora=/models/lora/$preset
[[ -s $LLAMA_ROOT$lora/support.gguf && -s $LLAMA_ROOT$lora/sql.gguf ]] ||
  fail "setup.sh wrote no adapters at $LLAMA_ROOT$lora"
start_llama LORA --lora "$lora/support.gguf,$lora/sql.gguf" --lora-init-without-apply -np 4 -sps 0 -c 8192 -t 1 --cache-ram 0

listed=$(curl -sf "$LORA_URL/lora-adapters")
support_id=$(jq -r '.[] | select(.path | endswith("/support.gguf")) | .id' <<<"$listed")
sql_id=$(jq -r '.[] | select(.path | endswith("/sql.gguf")) | .id' <<<"$listed")
[[ $support_id =~ ^[0-9]+$ && $sql_id =~ ^[0-9]+$ ]] || fail "GET /lora-adapters: $listed"

# The measurable difference: one prompt, greedy, with each adapter and with neither.
greedy() { # greedy LORA_JSON: the answer's text
  curl -sf "$LORA_URL/v1/chat/completions" -d '{"model":"m","messages":[{"role":"user","content":"Tell me about the weather in Lisbon"}],"max_tokens":12,"temperature":0,"ignore_eos":true,"lora":'"$1"'}' |
    jq -r '.choices[0].message.content'
}
g_base=$(greedy "[{\"id\":$support_id,\"scale\":0.0},{\"id\":$sql_id,\"scale\":0.0}]")
g_support=$(greedy "[{\"id\":$support_id,\"scale\":1.0},{\"id\":$sql_id,\"scale\":0.0}]")
g_sql=$(greedy "[{\"id\":$sql_id,\"scale\":1.0},{\"id\":$support_id,\"scale\":0.0}]")
g_absent=$(curl -sf "$LORA_URL/v1/chat/completions" -d '{"model":"m","messages":[{"role":"user","content":"Tell me about the weather in Lisbon"}],"max_tokens":12,"temperature":0,"ignore_eos":true}' |
  jq -r '.choices[0].message.content')
[[ $g_base != "$g_support" && $g_base != "$g_sql" && $g_support != "$g_sql" ]] ||
  fail "greedy answers do not differ by adapter: base '$g_base', support '$g_support', sql '$g_sql'"

# The log: 18 chat requests 0.4 s apart, cycling support-bot, sql-bot and gpt-4o, line i asking
# 33 + i tokens and logged as ended by its length (finish_reason length: replay forces it, so
# the model's reachable end-of-sequence token does not end it early).
n=18
: >"$d/log.jsonl"
for ((i = 0; i < n; i++)); do
  case $((i % 3)) in 0) m=support-bot ;; 1) m=sql-bot ;; 2) m=gpt-4o ;; esac
  jq -nc --argjson i "$i" --arg m "$m" '{timestamp: ($i * 0.4), request: {model: $m, stream: true, max_tokens: (33 + $i),
    messages: [{role: "user", content: "Question \($i) for \($m): what changes in the weather this week, and why?"}]},
    response: {choices: [{index: 0, message: {role: "assistant", content: "..."}, finish_reason: "length"}],
      usage: {completion_tokens: (33 + $i)}}}' >>"$d/log.jsonl"
done
cat >"$d/map.yaml" <<YAML
support-bot: {model: "$MODEL", adapter: support}
sql-bot: {model: "$MODEL", adapter: sql}
gpt-4o: {model: "$MODEL"}
YAML

# /slots, polled while replay runs: each slot's task id, length asked and lora.
(while :; do
  curl -sf "$LORA_URL/slots" | jq -c '.[] | select(.id_task >= 0) | {slot: .id, task: .id_task, max: .params.max_tokens, lora: .params.lora}' 2>/dev/null
  sleep 0.02
done) >"$d/slots.jsonl" &
poller=$!
pids+=("$poller")
"$replay" run --endpoint "$LORA_URL/v1" --format openai-log --trace "$d/log.jsonl" --model-map "$d/map.yaml" \
  --tokenizer "$TOKENIZER" --api chat --on-error skip --timeout 3m --max-lateness 0 --checks none --metrics-url none \
  --out "$d/run" >"$d/run.log" 2>&1 || { rc=$?; cat "$d/run.log" >&2; fail "replay run exited $rc"; }
sleep 0.3
kill "$poller" 2>/dev/null || true
wait "$poller" 2>/dev/null || true

rf() { jq -r "$@" "$d/run/summary.json"; }
[[ $(rf --argjson n "$n" '.requests.failed == 0 and .requests.ok == $n and .requests.total == $n') == true ]] ||
  fail "$(rf .requests.ok) of $(rf .requests.total) ok (want $n), errors $(rf -c .errors) $(rf -c .error_samples)"
[[ $(rf '.fidelity.prompt_tokens_exact_pct == 100 and .fidelity.output_tokens_exact_pct == 100') == true ]] ||
  fail "prompt tokens $(rf .fidelity.prompt_tokens_exact_pct)% exact, output tokens $(rf .fidelity.output_tokens_exact_pct)% (forced)"
[[ $(rf --arg base "$MODEL" '.models.support.requests == 6 and .models.sql.requests == 6 and .models[$base].requests == 6') == true ]] ||
  fail "summary.json models: $(rf -c '.models | map_values(.requests)')"

# Each log line's task at /slots: its length names the line, its lora the adapter it ran with.
# /slots shows a request's own lora list (a request without one shows [], though the server's
# global scales served it: the greedy answer without a lora field is neither the base's nor an
# adapter's), so the whole list is checked: every listed id, the line's adapter's at 1 and the
# others at 0 (the base's all at 0).
want() { # want LINE: the lora list line LINE must have run with, sorted by id
  local on=-1
  case $(($1 % 3)) in 0) on=$support_id ;; 1) on=$sql_id ;; esac
  jq -c --argjson on "$on" '[.[] | {id, scale: (if .id == $on then 1 else 0 end)}] | sort_by(.id)' <<<"$listed"
}
seen=0
for ((i = 0; i < n; i++)); do
  got=$(jq -sc --argjson max "$((33 + i))" '[.[] | select(.max == $max) | {task, lora: ([.lora[]? | {id, scale}] | sort_by(.id))}] | unique' "$d/slots.jsonl")
  [[ $(jq 'length' <<<"$got") -ge 1 ]] || fail "log line $i (max_tokens $((33 + i))) was never seen at /slots: $(wc -l <"$d/slots.jsonl") polls"
  [[ $(jq -c '[.[].lora] | unique' <<<"$got") == "[$(want "$i")]" ]] ||
    fail "log line $i ($(jq -r .request.model <<<"$(sed -n "$((i + 1))p" "$d/log.jsonl")")): /slots shows $got, want lora $(want "$i")"
  seen=$((seen + 1))
done

# An adapter the server did not load: a setup error before the first send, naming the listed ones.
printf 'support-bot: {model: "%s", adapter: legal}\n"*": {model: "%s"}\n' "$MODEL" "$MODEL" >"$d/bad.yaml"
if "$replay" run --endpoint "$LORA_URL/v1" --format openai-log --trace "$d/log.jsonl" --model-map "$d/bad.yaml" \
  --tokenizer "$TOKENIZER" --api chat --checks none --metrics-url none --out "$d/bad" >"$d/bad.log" 2>&1; then
  fail "a map naming adapter legal, which the server did not load, ran"
fi
grep -q 'adapter "legal"' "$d/bad.log" && grep -q 'support.gguf' "$d/bad.log" ||
  fail "the unloaded adapter's error does not name it and the listed adapters: $(tail -n 3 "$d/bad.log")"

pass "llama-server with adapters support (id $support_id) and sql (id $sql_id): greedy answers to one prompt differ (base '${g_base:0:24}', support '${g_support:0:24}', sql '${g_sql:0:24}'; no lora field: '${g_absent:0:24}'); replay of $n logged requests of 3 models: all ok, each of the $seen seen at /slots with its mapped adapter alone at scale 1 (the base's: every adapter at 0), prompt tokens $(rf .fidelity.prompt_tokens_exact_pct)% exact (output $(rf .fidelity.output_tokens_exact_pct)%), models $(rf -c '.models | map_values(.requests)'); an unloaded adapter stopped the run: $(grep -m1 -o 'adapter "legal".*' "$d/bad.log" | cut -c1-160)"
