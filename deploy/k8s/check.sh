#!/usr/bin/env bash
# deploy/k8s/check.sh: the Kubernetes manifests and the Dockerfile checked against the
# Kubernetes API's types (k8s.io/api, decoded strictly), with the Job rendered by the guide's
# own submit command (deploy/README.md), since no cluster runs here. Its own module, so replay
# never links the Kubernetes types; the modules come from the Go module proxy.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=$(mktemp -d "${TMPDIR:-/tmp}/replay-k8s.XXXXXX")
trap 'rm -rf "$work"' EXIT
sed "s/@START_AT@/$(( $(date +%s) + 90 ))/" deploy/k8s/replay-job.yaml >"$work/replay-job.yaml"
cd deploy/k8s
REPLAY_JOB_YAML=$work/replay-job.yaml go test -count=1 ./...
