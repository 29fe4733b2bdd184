#!/usr/bin/env bash
# The project's test command (README, second set-up command; .ci/run calls it).
# Fetches the real tokenizers the golden tests need, then vets and tests everything.
set -euo pipefail
cd "$(dirname "$0")/.."
export REPLAY_TOKENIZER_CACHE=${REPLAY_TOKENIZER_CACHE:-$PWD/.cache/tokenizers}
scripts/fetch-tokenizers.sh >/dev/null
gofmt_out=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.cache/*'))
if [ -n "$gofmt_out" ]; then echo "gofmt would change: $gofmt_out" >&2; exit 1; fi
go vet ./...
go vet -tags daulet ./...
go test -count=1 ./... "$@"
