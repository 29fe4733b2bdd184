// Package results owns the run files written as a run goes: the result row (one per request
// sent) with its streaming Parquet writer and reader (requests.parquet), the journal that
// keeps the rows through a crash (requests.journal: journal.go, journal_read.go,
// rowcodec.go) and the recovery of a cut run from it (recover.go), and the
// server_metrics.jsonl line format with its writer and reader (servermetrics.go). Rows come
// from whoever sends requests (the scheduler, through the client's timings), server samples
// from scrape; analysis reads both back. This package does not know who produced a row or a
// sample and computes nothing from them.
//
// Crash safety. parquet-go writes a file's footer only at Close, and a Parquet file without
// one is unreadable (DuckDB: "No magic bytes found at end of file"). So every row also goes,
// before it is encoded, to an append-only journal beside the file: CRC-32C-checked,
// length-prefixed records, one write per batch the writer takes from its queue, synced
// every second. A kill loses only rows still queued (milliseconds' worth), a power loss the
// last second's, a full disk the rows after the failed write; a torn or damaged record ends
// the rows there and is dropped, never misread. Close writes the footer, syncs, and only then
// removes the journal, so a cleanly closed run folder is what it always was. Recover (what
// `replay report` calls) rebuilds requests.parquet from the journal of a cut run, and leaves
// a run that is still going alone (its writer holds a lock on the journal until it exits).
//
// Why a journal rather than closed Parquet segments rolled every few seconds: segments lose
// everything since the last roll (a kill loses seconds of rows, not milliseconds), every
// roll costs a footer and a sync however few rows it holds, a long run leaves thousands of
// files or a merge step, and a torn segment still needs the footer check to be skipped; a
// journal record is a few bytes of framing around a compact binary row, its CRC decides
// exactly which rows are whole, and the Parquet file stays one file with the row groups it had.
// The journal is removed at a clean Close and kept after a recovery (the evidence; the rebuilt
// file carries the journal's id, so the rows are never counted twice). A server-metrics file
// is written one whole line at a time, so a killed run leaves at most a cut last line, which
// its reader leaves out.
package results
