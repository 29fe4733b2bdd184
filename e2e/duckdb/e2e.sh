#!/usr/bin/env bash
# e2e/duckdb/e2e.sh: DuckDB reads the requests.parquet of a clean run and of every killed run
# that `replay report` recovered. Builds e2e/duckdb (its own module, so replay never links
# DuckDB: go-duckdb with cgo and DuckDB's prebuilt static library from the Go module proxy,
# about 1 min and 460 MB of module cache cold on 2 cores; g++ installed when missing) into
# $REPLAY_DUCKDB_CACHE (default <repo>/.cache/duckdb), checks a clean run's file, then runs the
# kill test (cmd/replay TestRunKilled: 24 SIGKILLs, about 25 s) with REPLAY_DUCKDB set, so DuckDB
# must count the same rows and distinct request ids as replay in every recovered file.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cache=${REPLAY_DUCKDB_CACHE:-$root/.cache/duckdb}

need=()
command -v g++ >/dev/null || need+=(g++)
command -v jq >/dev/null || need+=(jq)
if ((${#need[@]})); then
  sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  echo "e2e/duckdb: apt-get install ${need[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need[@]}" >&2
fi
mkdir -p "$cache"
(cd e2e/duckdb && CGO_ENABLED=1 go build -o "$cache/duckdb-count" .)
duck=$cache/duckdb-count

work=$(mktemp -d "${TMPDIR:-/tmp}/replay-duckdb.XXXXXX")
trap 'rm -rf "$work"' EXIT
go build -o "$work/replay" ./cmd/replay
"$work/replay" run --speed 16 --limit 100 --out "$work/run" >"$work/run.log" 2>&1 ||
  { tail -n 30 "$work/run.log" >&2; exit 1; }
got=$("$duck" "$work/run/requests.parquet")
[[ $got == "rows 100 distinct_request_ids 100" ]] || { echo "e2e/duckdb: clean run: DuckDB says: $got" >&2; exit 1; }
echo "e2e/duckdb: DuckDB reads a clean run's requests.parquet: $got"
# A snapshot taken mid-run (--snapshot-every): DuckDB reads the segments its partial
# summary.json names, which hold at least the requests that summary counts.
"$work/replay" run --speed 4 --limit 150 --snapshot-every 2s --out "$work/snap" >"$work/snap.log" 2>&1 &
snap_pid=$!
snapshot=""
for _ in $(seq 1 300); do
  if [[ -f $work/snap/summary.json ]] && grep -q '"partial": true' "$work/snap/summary.json"; then
    mkdir -p "$work/snapcopy/partial"
    cp "$work/snap/summary.json" "$work/snapcopy/"
    cp "$work/snap"/partial/*.parquet "$work/snapcopy/partial/" 2>/dev/null || true
    if [[ $(jq -r '.run.partial == true and .requests.total > 0' "$work/snapcopy/summary.json") == true ]]; then
      snapshot=$work/snapcopy && break
    fi
  fi
  sleep 0.1
done
wait "$snap_pid" || { tail -n 30 "$work/snap.log" >&2; exit 1; }
[[ -n $snapshot ]] || { echo "e2e/duckdb: no partial snapshot seen during the run" >&2; exit 1; }
glob=$(jq -r '.run.partial_rows' "$snapshot/summary.json")
counted=$(jq -r '.requests.total' "$snapshot/summary.json")
got=$("$duck" "$snapshot/$glob")
rows=${got#rows }; rows=${rows%% *}
((rows >= counted)) || { echo "e2e/duckdb: the snapshot counts $counted requests, DuckDB reads $got in $glob" >&2; exit 1; }
echo "e2e/duckdb: DuckDB reads a mid-run snapshot's segments ($glob): $got; its summary counts $counted"
REPLAY_DUCKDB=$duck go test -count=1 -run '^(TestRunKilled|TestResumeAfterKill)$' -v ./cmd/replay 2>&1 | tee "$work/kill.log" | grep -E '^(--- |ok|FAIL|PASS)|kills:' || true
grep -q '^--- PASS: TestRunKilled' "$work/kill.log" || { tail -n 40 "$work/kill.log" >&2; exit 1; }
grep -q '^--- PASS: TestResumeAfterKill' "$work/kill.log" || { tail -n 40 "$work/kill.log" >&2; exit 1; }
echo "e2e/duckdb: DuckDB reads every recovered requests.parquet of the kill test, and each resumed run's"
