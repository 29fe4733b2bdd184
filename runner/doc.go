// Package runner connects the stages for one replay run: it reads the trace (ingest), builds the
// prompts (synth) before the clock starts, dispatches them on time (scheduler) through the
// streaming client, streams one result row per request to disk (results) and summarizes the run
// (analysis). It exists so that cmd/replay only wires flags. It owns no stage's logic: it must
// not time requests, pace sends, compute percentiles or parse formats itself.
package runner
