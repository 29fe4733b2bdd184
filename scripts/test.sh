#!/usr/bin/env bash
# The project's test command (README, second set-up command; .ci/run calls it).
# Fetches the real tokenizers the golden tests need, then checks formatting, vets (also the
# daulet-tagged build), runs staticcheck and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
export REPLAY_TOKENIZER_CACHE=${REPLAY_TOKENIZER_CACHE:-$PWD/.cache/tokenizers}
scripts/fetch-tokenizers.sh >/dev/null
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted" >&2; exit 1; fi
go vet ./...
go vet -tags daulet ./...
staticcheck=$(go env GOPATH)/bin/staticcheck
[ -x "$staticcheck" ] || go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
"$staticcheck" ./...
go test -count=1 -timeout 30m ./... "$@"
