// Package results owns what a run records, apart from how it is stored: the result row (one
// per request sent; row.go), what the recovery of a cut run found (Recovery, kept in
// summary.json), and the server_metrics.jsonl line format with its writer and reader
// (servermetrics.go) and its neutral keys, the same for every engine, older files' vLLM-named
// keys read as today's (serverkeys.go). Rows come from whoever sends requests (the scheduler, through the
// client's timings), server samples from scrape; analysis reads both. This package does not
// know who produced a row or a sample and computes nothing from them.
//
// It must not import parquet-go: the row's file (requests.parquet, its journal and its
// recovery) is package rowfile's, because parquet-go links net/http (through its brotli
// codec) and analysis, which needs the row, must not. A server-metrics file is written one
// whole line at a time, so a killed run leaves at most a cut last line, which its reader
// leaves out.
package results
