// Package tracestat summarizes a trace's records: its shape for `replay ingest --stats` (span,
// rate, burstiness, token percentiles, the ideal prefix-cache hit rate) and `replay cache-sim`'s
// run of the trace's block hashes through an ideal cache (prefixcache). Records come from
// ingest's readers; the figures go to the command's output. It must not open or parse trace files
// (ingest does), build prompts or talk to an endpoint.
package tracestat
