// Package trace owns the Record type (one request of the original traffic) and the normalized
// trace file: Parquet with the schema in SCHEMA.md, written and read as a stream, plus an Arrow
// IPC export for pandas/polars users. It must not know about HTTP, tokenizers or input formats:
// records come from ingest and go to synth, the scheduler and analysis.
package trace
