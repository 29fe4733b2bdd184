package trace

import "time"

// Record is one request of the original traffic, normalized from whatever format it came in.
type Record struct {
	// Timestamp is the request's arrival time measured from the trace's origin (its first
	// record's raw time), with nanosecond precision.
	Timestamp time.Duration
	// PromptTokens and OutputTokens are the counts the original server saw and produced.
	PromptTokens int
	OutputTokens int
	// BlockHashes is the hash chain of the prompt's fixed-size blocks: equal hash means equal
	// block content, and a hash implies its whole prefix. Nil when the trace has none.
	BlockHashes []uint64
	// BlockSize is the number of tokens per hashed block (512 Mooncake, 16 Qwen/Bailian, 64 Weka).
	BlockSize int
	// SessionID groups the turns of one conversation; empty when the trace has no sessions.
	SessionID string
	// Turn is the 0-based turn number within SessionID.
	Turn int
	// Model is the model the original request named, when the trace records it.
	Model string
	// Headers are the request headers the log held (a request log's "headers"), names in
	// lower case, sorted; credentials are dropped where they are read (SecretHeader). Nil
	// for none. The normalized file keeps them (its headers column); the Arrow export not yet.
	Headers []Header
	// Options are the request's own options and logged outcome (see Options); nil when the
	// trace has none (every format but request logs and normalized traces made from them).
	Options *Options
	// Media are the images the request carried, in order of message and part (nil for none);
	// PromptTokens includes their tokens (MediaTokens).
	Media []MediaPart
	// Source and Line say where the record came from (file path and 1-based line, or row
	// number for columnar formats), so later stages can point at the input in errors.
	Source string
	Line   int64
}
