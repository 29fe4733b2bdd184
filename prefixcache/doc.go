// Package prefixcache replays a trace's prefix block hashes through an idealized prefix cache
// (infinite, or LRU of N blocks) and counts block hits: the upper bound on what prefix caching
// can save for that traffic. It owns only this counting and the cache's size in bytes; it knows
// nothing of engines, HTTP or files, and gets hashes from trace records (ingest) and gives
// numbers to cmd and analysis.
//
// # One capacity, or all of them
//
// Cache (New, HitRate) simulates one cache: a request's block hits when the cache holds it and
// every block before it in the request (a prefix cache reuses only a prefix); its blocks are
// then touched last to first, so eviction takes a prefix's tail before its head.
//
// Curve (NewCurve, Add, At, Points) gives the hits of that LRU at every capacity at once, from
// one pass: the hits At(C) reads are HitRate(requests, C)'s exactly, for every C (curve.go
// says why; the tests hold it to Cache on random, generated, public and fuzzed traces).
// AddPrompt also weighs each block by the prompt tokens it can save (TokensAt), the share
// engines report, so a measured hit rate can be held to the curve. Each block costs
// O(log n) (a Fenwick tree over last-touch times, packed when its window fills) and memory
// grows with the distinct blocks, not the trace: BenchmarkCurve10M measured about 50 bytes of
// heap a distinct block and 3 µs a request of 12 blocks on a 2-CPU Xeon. BenchmarkCurveVsLRU10M
// times per-capacity Cache passes over the same requests in the same invocation, the ratio.
//
// # Sizes in bytes
//
// KVBytesPerToken (2 x layers x KV heads x head dim x bytes per element, for K and V) and
// ParseModelConfig (the same from a Hugging Face config.json's bytes) give a model's KV cache
// per token; KVSize turns capacities in blocks of a trace's block size into GiB and back.
package prefixcache
