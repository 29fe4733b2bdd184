// Package ingest turns traces (Mooncake JSONL, Azure and BurstGPT CSV, generic JSONL/CSV/Parquet
// with a field mapping, such as gateway access logs holding token counts) into trace.Records,
// streaming, with every bad row reported by file:line and field, and either failing the run or
// quarantined and counted. Open is the one entry point for every format and Reader the one
// record stream: request logs (openai-log) are read by the reader package requestlog registers
// (Register), so ingest itself knows nothing of tokenizers or endpoints (Options.Tokenizer is a
// path it hands on). A trace may be many files (a folder, a glob, several --trace values):
// Resolve finds them and Open merges their records in time order, each file through its own
// reader, opened only when the merge reaches it; any file may be gzip'd or zstd'd, known by
// its first bytes. It must not load a whole file to parse it (only an explicit --sort of an
// out-of-order file buffers, within the memory budget) nor import requestlog or anything
// later; records go on to trace files (Normalize, the `replay ingest` job), synth, tracestat
// and the scheduler.
package ingest
