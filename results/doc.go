// Package results owns the result row (one per request sent), its streaming Parquet writer
// and its reader. Rows come from whoever sends requests (the scheduler, through the client's
// timings) and go to requests.parquet, which analysis reads back; this package does not know
// who produced a row and computes nothing from them.
//
// Crash safety: rows are flushed to disk as row groups every 10,000 rows or every second,
// and Close writes the footer that makes the file readable. SIGINT/SIGTERM must therefore end
// in Close (the run does this); a SIGKILL leaves a file without a footer that Read rejects
// with a clear error (see writer.go for why a checkpointed footer is not written).
package results
