// Package ingest turns access logs and public traces (Mooncake JSONL, Azure and BurstGPT CSV,
// generic JSONL/CSV/Parquet with a field mapping) into trace.Records, streaming, with every bad
// row reported by file:line and field, and either failing the run or quarantined and counted.
// It must not load a whole file to parse it (only an explicit --sort of an out-of-order file
// buffers) and knows nothing of tokenizers or endpoints; records go on to trace files, synth and
// the scheduler.
package ingest
