#!/usr/bin/env bash
# The project's test command (README, second set-up command; .ci/run calls it).
# Fetches the real tokenizers the golden tests need, then checks formatting, vets (also the
# daulet-tagged build), runs staticcheck and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
export REPLAY_TOKENIZER_CACHE=${REPLAY_TOKENIZER_CACHE:-$PWD/.cache/tokenizers}
scripts/fetch-tokenizers.sh >/dev/null
# The tests over the public traces (../shared/traces, or $REPLAY_SHARED/traces) run when they
# are there; say once, here, when they will be skipped (REPLAY_REQUIRE_TRACES=1 fails them).
traces=${REPLAY_SHARED:+$REPLAY_SHARED/traces}
if [ -z "$traces" ]; then
  for d in "$PWD" "$(dirname "$PWD")" "$(dirname "$(dirname "$PWD")")"; do
    [ -d "$d/shared/traces" ] && traces=$d/shared/traces && break
  done
fi
if [ -z "$traces" ] || [ ! -d "$traces" ]; then
  if [ "${REPLAY_REQUIRE_TRACES:-}" = 1 ]; then
    echo "scripts/test.sh: REPLAY_REQUIRE_TRACES=1 but the public traces (shared/traces beside the repository, or \$REPLAY_SHARED/traces) are missing" >&2
    exit 1
  fi
  echo "scripts/test.sh: the public traces (shared/traces beside the repository) are not here: the tests over them are skipped; everything else runs" >&2
fi
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted" >&2; exit 1; fi
go vet ./...
go vet -tags daulet ./...
staticcheck=$(go env GOPATH)/bin/staticcheck
[ -x "$staticcheck" ] || go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
"$staticcheck" ./...
# One package at a time (-p 1): the run, paired, shard, sweep, calibration and cache-study tests
# each judge send timing or a fitted latency curve against real processes on this machine's two
# cores, and since the studies left runner for packages of their own, running two such packages
# side by side made honest runs late (a 4-process shard test at p99 4-18 ms, a calibration fit off
# by 2 ms). Their timing is what they test, so each gets the machine to itself.
go test -count=1 -p 1 -timeout 40m ./... "$@"
