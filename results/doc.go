// Package results owns the run files written as a run goes: the result row (one per request
// sent) with its streaming Parquet writer and reader (requests.parquet), and the
// server_metrics.jsonl line format with its writer and reader (servermetrics.go). Rows come
// from whoever sends requests (the scheduler, through the client's timings), server samples
// from scrape; analysis reads both back. This package does not know who produced a row or a
// sample and computes nothing from them.
//
// Crash safety: rows are flushed to disk as row groups every 10,000 rows or every second,
// and Close writes the footer that makes the file readable. SIGINT/SIGTERM must therefore end
// in Close (the run does this); a SIGKILL leaves a file without a footer that Read rejects
// with a clear error (see writer.go for why a checkpointed footer is not written). A
// server-metrics file is written one whole line at a time, so a killed run leaves at most a cut
// last line, which its reader leaves out.
package results
