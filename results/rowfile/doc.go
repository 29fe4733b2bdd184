// Package rowfile owns the file of a run's rows: requests.parquet's streaming writer (a
// run's Output) and reader (Read, ReadAll, and Rows and RowsReused as iterators; a file of
// results.Row's own columns read column by column, colread.go, any other by parquet-go's
// generic reader), the journal that keeps the rows through a crash (requests.journal:
// journal.go, journal_read.go, rowcodec.go) and the recovery of a cut run from it
// (recover.go). It does not know who produced a row and computes nothing from the rows.
//
// Why apart from package results (the row itself): reading or writing Parquet links
// parquet-go, whose codec table links every codec, among them andybalholm/brotli, which
// imports net/http. What turns rows into figures and pages (analysis and what reads it) must
// link no network code, so it imports results for the row and takes the rows from a later
// package (runload) that reads them here.
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
// file carries the journal's id, so the rows are never counted twice).
package rowfile
