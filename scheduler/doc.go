// Package scheduler owns the send schedule and its dispatch: it turns trace items into due
// offsets (speed factor, --from/--to/--limit window, shards, multi-turn session gating), then
// releases them open loop on a monotonic clock, with an optional concurrency ceiling and
// per-request lateness and queue-wait accounting. Items come from the runner (built from trace
// records by synth); each due item goes to the caller's SendFunc, which owns the request and
// its result row. It must not import the client, results, analysis or sim packages, and it
// computes no percentiles beyond a cheap estimate for the progress line.
package scheduler
