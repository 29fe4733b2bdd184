#!/usr/bin/env bash
# setup.sh: an OpenTelemetry Collector for e2e.sh, built from the Go module proxy with the
# Collector's own builder (go.opentelemetry.io/collector/cmd/builder, pinned below) from
# builder.yaml (the OTLP receiver and the contrib file exporter, one release), cached at
# $REPLAY_OTELCOL_CACHE/<version>/otelcol-replay (default <repo>/.cache/otelcol) and reused when
# present (cold: about 3-5 min on 2 cores; warm: a file test). It prints the binary's path as a
# shell assignment (OTELCOL_BIN=...) on its last line. Usage: e2e/otel/setup.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=v0.165.0
cache=${REPLAY_OTELCOL_CACHE:-$root/.cache/otelcol}
case ${1:-} in
-h | --help) sed -n '2,7p' "$0"; exit 0 ;;
"") ;;
*) echo "setup.sh: unknown argument $1" >&2; exit 2 ;;
esac

dir=$cache/$version
bin=$dir/otelcol-replay
if [[ ! -x $bin ]]; then
  mkdir -p "$dir"
  echo "setup: building the Collector $version into $bin (about 3-5 minutes cold on 2 cores)" >&2
  start=$(date +%s)
  GOBIN=$dir/tools go install "go.opentelemetry.io/collector/cmd/builder@$version"
  sed "s|^dist:|dist:\n  output_path: $dir/src|" "$here/builder.yaml" >"$dir/builder.yaml"
  # The builder writes go.mod, then its module step (go mod tidy) resolves the components'
  # test imports too, and one of the file exporter's (otlpencodingextension v0.165.0) is not
  # served: that step fails after go.mod is written. go build then resolves only what the
  # binary imports (-mod=mod).
  "$dir/tools/builder" --config "$dir/builder.yaml" --skip-compilation >"$dir/builder.log" 2>&1 ||
    grep -q otlpencodingextension "$dir/builder.log" || { cat "$dir/builder.log" >&2; exit 1; }
  [[ -f $dir/src/go.mod ]] || { cat "$dir/builder.log" >&2; echo "setup: the builder wrote no go.mod" >&2; exit 1; }
  (cd "$dir/src" && GOFLAGS=-mod=mod go build -trimpath -o "$bin" .)
  echo "setup: built in $(($(date +%s) - start)) s" >&2
fi
echo "OTELCOL_BIN=$bin"
