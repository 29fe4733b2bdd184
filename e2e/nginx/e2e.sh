#!/usr/bin/env bash
# e2e/nginx/e2e.sh: session affinity through a real router (issue 47's nginx counterpart).
# Two `replay sim` backends on 127.0.0.1, each with --arrival-log, behind Debian's nginx (its
# own config, logs and pid under a temporary folder; one worker) with
#   upstream { hash $http_x_session_affinity consistent; server A; server B; }
# A request log (openai-log, the plain gateway shape: no session field, so replay recovers the
# sessions from the conversations, each turn extending the last with its logged answer) of 25
# sessions x 3 turns, turns interleaved across sessions, whose every line carries sentinel
# credentials in its `headers` object (authorization, x-api-key, cookie) besides an
# allowlisted x-priority, is replayed twice through nginx with --headers logged:
#   1. with --affinity-header x-session-affinity: every turn of every session reached one
#      backend (read off the backends' arrival logs, by X-Request-Id), both backends got
#      sessions, and nginx saw one affinity value per session, distinct across sessions;
#   2. without it: the same nginx location; nginx's hash with an empty key (the header absent)
#      falls back to round robin (measured with one worker: the requests alternate, so with 25
#      sessions, an odd number, every session splits), so the requests spread over both backends
#      and sessions split across them (what is checked: both backends got requests, at least one
#      session was split, and nginx saw no affinity header).
# Then the sentinel must appear in no file the runs wrote (out folders, arrival logs, nginx's
# access and error logs, every process's stdout and stderr) and nginx's access log, which logs
# $http_authorization $http_x_api_key $http_cookie, must show them absent ("-") on every
# request, while the allowlisted x-priority arrived. The search reads bytes as written:
# requests.parquet is written uncompressed (results/rowfile) and report.html holds no
# compressed data, so a leaked string would be found as it is.
# Which backend a session lands on follows from nginx's ketama points of the two (random)
# ports and replay's affinity digest of the recovered session ("s1".."s25"); all 25 on one
# backend (the run then fails: the check needs both) has a chance near 2^-24 (an even split of the
# hash ring; near 1e-4 were it as uneven as 30/70).
# About 20 s warm (two 4 s replays at 1x, the build of replay); installs Debian's nginx-light
# when nginx is missing (about 10 s more). REPLAY_NGINX_KEEP=1 keeps the folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
t0=$(date +%s.%N)
say() { echo "e2e/nginx: $*" >&2; }
. "$root/e2e/proc.sh" # alive, stop, free_port
fail() { say "FAIL: $*"; exit 1; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

if ! command -v nginx >/dev/null && [[ ! -x /usr/sbin/nginx ]]; then
  sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  say "apt-get install nginx-light"
  "${sudo[@]}" apt-get update -qq
  # policy-rc.d or not, the system's nginx is never used: this script starts its own.
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends nginx-light >&2
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d "${TMPDIR:-/tmp}/replay-nginx.XXXXXX")
chmod 755 "$work" # nginx's worker (user nobody when run as root) reads nothing here, but may need to traverse
pids=()
cleanup() {
  local rc=$? i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[i]}"; done
  if ((rc != 0)); then
    for f in "$work"/nginx-error.log "$work"/sim-*.err "$work"/run-*.err; do
      [[ -s $f ]] && { say "last lines of $f:"; tail -n 15 "$f" >&2; }
    done
  fi
  if [[ ${REPLAY_NGINX_KEEP:-} == 1 ]]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

wait_http() { # wait_http URL PID NAME
  local i
  for i in $(seq 200); do
    curl -sf "$1" >/dev/null && return
    alive "$2" || break
    sleep 0.05
  done
  fail "$3 did not start"
}

go build -o "$work/replay" ./cmd/replay

# The request log: S sessions x T turns, turn-major (turn 0 of every session, then turn 1...),
# 50 ms apart, so request index i (replay's X-Request-Id: its place in time order) is session
# i % S, turn i / S. S is odd: round robin over two backends then splits sessions.
S=25
T=3
sentinel="SENTINEL-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
log=$work/input/requests.jsonl
mkdir -p "$work/input"
{
  for ((t = 0; t < T; t++)); do
    for ((s = 0; s < S; s++)); do
      i=$((t * S + s))
      # No system message: the sample tokenizer's (Mistral's) chat template refuses one.
      msgs=''
      for ((k = 0; k <= t; k++)); do
        if ((k > 0)); then msgs+=','; fi
        msgs+='{"role":"user","content":"Session '$s', question '$k': tell me about topic number '$((s * 7 + k))' in two sentences."}'
        if ((k < t)); then
          msgs+=',{"role":"assistant","content":"Here is an answer about topic '$((s * 7 + k))' for session '$s'. It has two sentences."}'
        fi
      done
      ts=$(printf '2026-03-02T09:00:%02d.%03dZ' $((i / 20)) $(((i % 20) * 50)))
      printf '{"timestamp":"%s","request":{"model":"gpt-4o-mini","messages":[%s],"max_tokens":16,"stream":true},' "$ts" "$msgs"
      printf '"response":{"choices":[{"index":0,"message":{"role":"assistant","content":"Here is an answer about topic %d for session %d. It has two sentences."},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":16}},' \
        $((s * 7 + t)) "$s" $((40 + 30 * t))
      printf '"headers":{"Authorization":"Bearer %s","x-api-key":"%s","Cookie":"session=%s","x-priority":"%d","content-type":"application/json"}}\n' \
        "$sentinel" "$sentinel" "$sentinel" $((s % 3))
    done
  done
} >"$log"
N=$((S * T))

# Two backends and nginx in front.
pa=$(free_port)
pb=$(free_port)
pn=$(free_port)
while [[ $pb == "$pa" ]]; do pb=$(free_port); done
while [[ $pn == "$pa" || $pn == "$pb" ]]; do pn=$(free_port); done
start_sim() { # start_sim NAME PORT RUN
  "$work/replay" sim --listen "127.0.0.1:$2" --zero-cost --arrival-log "$work/arrivals-$3-$1.tsv" \
    >"$work/sim-$3-$1.out" 2>"$work/sim-$3-$1.err" &
  sim_pid=$!
  pids+=($sim_pid)
  wait_http "http://127.0.0.1:$2/v1/models" "$sim_pid" "replay sim $1 on port $2"
}

mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx-error.log info;
events { worker_connections 256; }
http {
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  # Tab-separated: request id, the backend nginx chose, the affinity header, the credentials
  # (each "-" when absent), the allowlisted priority, status, URI.
  log_format replay "\$http_x_request_id\t\$upstream_addr\t\$http_x_session_affinity\t\$http_authorization\t\$http_x_api_key\t\$http_cookie\t\$http_x_priority\t\$status\t\$request_uri";
  access_log $work/nginx-access.log replay;
  upstream backends {
    hash \$http_x_session_affinity consistent;
    server 127.0.0.1:$pa;
    server 127.0.0.1:$pb;
    keepalive 16;
  }
  server {
    listen 127.0.0.1:$pn;
    location / {
      proxy_pass http://backends;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
EOF
"$nginx_bin" -t -q -c "$work/nginx/nginx.conf" -p "$work/nginx" 2>"$work/nginx-t.err" ||
  { cat "$work/nginx-t.err" >&2; fail "nginx rejects its configuration"; }
"$nginx_bin" -c "$work/nginx/nginx.conf" -p "$work/nginx" >"$work/nginx.out" 2>"$work/nginx.err" &
nginx_pid=$!
pids+=($nginx_pid)

# run NAME [flags]: backends A and B fresh (their arrival logs per run), the replay through
# nginx, then the backends stopped so their arrival logs are complete.
run() {
  local name=$1 a b
  shift
  start_sim A "$pa" "$name"
  a=$sim_pid
  start_sim B "$pb" "$name"
  b=$sim_pid
  wait_http "http://127.0.0.1:$pn/v1/models" "$nginx_pid" "nginx on port $pn"
  "$work/replay" run --trace "$log" --format openai-log --endpoint "http://127.0.0.1:$pn/v1" --model replay-sim \
    --headers logged --checks none --metrics-url none --max-lateness none --out "$work/out-$name" "$@" \
    >"$work/run-$name.out" 2>"$work/run-$name.err" || fail "replay run ($name) exited $?"
  stop "$a"
  stop "$b"
}

# backend_of RUN: "<request id> <A|B>" a line for every API request the backends received.
backend_of() {
  awk -F'\t' '{ print $2, "A" }' "$work/arrivals-$1-A.tsv"
  awk -F'\t' '{ print $2, "B" }' "$work/arrivals-$1-B.tsv"
}
# per_session RUN: "<session> <requests on A> <requests on B>" a line for each session, after
# checking every request id 0..N-1 arrived exactly once.
per_session() {
  backend_of "$1" | awk -v S=$S -v N=$N -v run="$1" '
    { seen[$1]++; if ($1 !~ /^[0-9]+$/ || $1 >= N) { print "unexpected request id " $1 " in run " run > "/dev/stderr"; bad = 1 }
      else n[$1 % S, $2]++ }
    END {
      for (i = 0; i < N; i++) if (seen[i] != 1) { print "request " i " arrived " (seen[i] + 0) " times in run " run > "/dev/stderr"; bad = 1 }
      if (bad) exit 1
      for (s = 0; s < S; s++) print s, n[s, "A"] + 0, n[s, "B"] + 0
    }'
}

# 1. With --affinity-header.
run affinity --affinity-header x-session-affinity
aff=$(per_session affinity) || fail "run with --affinity-header: the backends did not receive each request exactly once"
split=$(awk '$2 > 0 && $3 > 0' <<<"$aff" | wc -l)
sa=$(awk '$2 > 0 && $3 == 0' <<<"$aff" | wc -l)
sb=$(awk '$3 > 0 && $2 == 0' <<<"$aff" | wc -l)
((split == 0)) || fail "with --affinity-header $split of $S sessions were split across the backends: $(tr '\n' ';' <<<"$aff")"
((sa > 0 && sb > 0)) || fail "with --affinity-header all sessions went to one backend (A $sa, B $sb): the check needs both"
# nginx's view: one affinity value per session, distinct across sessions, and the backend it
# logged is the one whose arrival log holds the request.
api='/v1/(chat/)?completions'
awk -F'\t' -v re="$api" '$9 ~ re' "$work/nginx-access.log" >"$work/access-affinity.tsv"
access_before=$(wc -l <"$work/nginx-access.log")
awk -F'\t' -v S=$S -v N=$N '
  { if ($3 == "-" || $3 == "") { print "request " $1 " reached nginx without the affinity header" > "/dev/stderr"; bad = 1 }
    s = $1 % S; if ((s in val) && val[s] != $3) { print "session " s " sent two affinity values" > "/dev/stderr"; bad = 1 }
    val[s] = $3; n++ }
  END { if (n != N) { print "nginx logged " n " API requests, want " N > "/dev/stderr"; bad = 1 }
    for (s in val) { if (val[s] in owner) { print "sessions " owner[val[s]] " and " s " share an affinity value" > "/dev/stderr"; bad = 1 } owner[val[s]] = s }
    exit bad }' "$work/access-affinity.tsv" || fail "nginx's access log of the affinity run"
say "with --affinity-header: $S sessions x $T turns, every session on one backend: A $sa sessions, B $sb; $S distinct affinity values at nginx"

# 2. Without it: the same location, the header absent, so nginx's hash has an empty key.
run spread
spr=$(per_session spread) || fail "run without --affinity-header: the backends did not receive each request exactly once"
ra=$(awk '{ a += $2 } END { print a + 0 }' <<<"$spr")
rb=$(awk '{ b += $3 } END { print b + 0 }' <<<"$spr")
split2=$(awk '$2 > 0 && $3 > 0' <<<"$spr" | wc -l)
((ra > 0 && rb > 0)) || fail "without --affinity-header all requests went to one backend (A $ra, B $rb)"
((split2 > 0)) || fail "without --affinity-header no session was split across the backends: $(tr '\n' ';' <<<"$spr")"
tail -n +$((access_before + 1)) "$work/nginx-access.log" | awk -F'\t' -v re="$api" '$9 ~ re' >"$work/access-spread.tsv"
awk -F'\t' '$3 != "-" { print "request " $1 " carried an affinity header: " $3 > "/dev/stderr"; bad = 1 } END { exit bad }' \
  "$work/access-spread.tsv" || fail "without --affinity-header a request still carried x-session-affinity"
say "without --affinity-header (nginx's hash on an empty key falls back to round robin): A $ra requests, B $rb; $split2 of $S sessions split across both"

# nginx's own record agrees with the backends': the backend it logged for each request
# ($upstream_addr) is the one whose arrival log holds that request id.
for name in affinity spread; do
  backend_of "$name" | awk -v a="127.0.0.1:$pa" -v b="127.0.0.1:$pb" -v run="$name" '
    NR == FNR { want[$1] = ($2 == "A" ? a : b); next }
    { n++; if (want[$1] != $2) { print run ": nginx sent request " $1 " to " $2 ", the arrival logs say " want[$1] > "/dev/stderr"; bad = 1 } }
    END { if (n != length(want)) { print run ": nginx logged " n " API requests, the backends received " length(want) > "/dev/stderr"; bad = 1 }
      exit bad }' - FS='\t' "$work/access-$name.tsv" || fail "nginx's access log and the arrival logs disagree"
done

# 3. Secrets: nginx saw every request without credentials but with the logged x-priority, and
# no file any process wrote holds the sentinel (the input log aside).
stop "$nginx_pid"
cat "$work/access-affinity.tsv" "$work/access-spread.tsv" | awk -F'\t' -v S=$S '
  { if ($4 != "-" || $5 != "-" || $6 != "-") { print "request " $1 ": authorization/x-api-key/cookie arrived: " $4 " " $5 " " $6 > "/dev/stderr"; bad = 1 }
    if ($7 != ($1 % S) % 3) { print "request " $1 ": x-priority " $7 ", want the logged " ($1 % S) % 3 > "/dev/stderr"; bad = 1 }
    n++ }
  END { exit bad }' || fail "nginx's access log: credentials arrived, or the logged x-priority did not"
leaks=$(grep -rlaF --exclude-dir=input -- "$sentinel" "$work" || true)
[[ -z $leaks ]] || fail "the sentinel appears in: $leaks"
[[ $(grep -cF -- "$sentinel" "$log") == "$N" ]] || fail "the sentinel is missing from the input log (the search would prove nothing)"
files=$(find "$work" -path "$work/input" -prune -o -type f -print | wc -l)
say "no sentinel in $files files the runs wrote (out folders, arrival logs, nginx's logs, every stdout and stderr); nginx saw authorization, x-api-key and cookie absent and x-priority as logged on all $((2 * N)) requests"
echo "e2e/nginx: PASS: $S sessions x $T turns; affinity: sessions A $sa / B $sb, 0 split; no affinity: requests A $ra / B $rb, $split2 sessions split; sentinel in 0 of $files files; wall $(since "$t0" "$(date +%s.%N)") s"
