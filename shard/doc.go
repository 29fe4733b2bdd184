// Package shard owns what makes one replay run on N machines one replay: a shard's identity
// (which share of which trace, scheduled from which shared instant, shard.json in its folder),
// the --shard K/N (or auto: K and N from the scheduler that started the process, auto.go) and
// --start-at TIME flag values, and the exact merge of the shards' folders
// into one run folder (`replay merge`).
//
// Why a package of its own: the scheduler only splits a schedule (scheduler.Config.Shard,
// Shards), results only stores rows and analysis only aggregates them; none of them knows
// that several folders are one run, nor may it refuse to combine two that are not. The merge
// must be exact, so it never combines the shards' summaries: it feeds every row of every
// shard to one analysis.Metrics, exactly as if one process had written them, and reads the
// shards' summaries only for what rows cannot say (requests never sent, each shard's own
// verdict).
//
// The contract a sharded run keeps for the merge to be right: every shard's row offsets are
// nanoseconds from the same instant, Info.StartAt, so rows of different machines share one
// time axis (their clocks synchronised by NTP, as any fleet's are); every shard writes
// shard.json (WriteInfo) before its first request, so even a shard killed at once is known
// for what it is; and request ids are unique across shards because each shard sends a
// disjoint share of the trace. The merge checks all three it can: one trace (by size and
// SHA-256, not by path, which differs between machines), one N and one start, each K once,
// and no request id in two shards.
package shard
