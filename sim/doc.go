// Package sim is the built-in simulated engine: an OpenAI-compatible HTTP server
// (/v1/chat/completions, /v1/completions, /v1/models, /health, /metrics) whose timings come from a
// cost model of continuous batching with chunked prefill, a block KV cache and an LRU prefix cache,
// on a virtual clock that is deterministic under a seed.
// It must never pretend to be a real model: every answer is the synthetic filler " tok" repeated
// exactly max_tokens times, and the model it lists is owned by "replay-simulator".
// Requests come from the replay client (or any OpenAI client); token counts come from the Counter
// and Tokenize hooks the caller supplies, with a documented approximation when they are absent.
package sim
