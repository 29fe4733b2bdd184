// Package tokenizer loads Hugging Face tokenizer.json files and encodes and decodes text exactly
// as the Rust tokenizers crate does, in pure Go: BPE models (byte-level and SentencePiece-style),
// their normalizers, pre-tokenizers, post-processors, decoders and added tokens.
// It must not send requests or know about traces; text comes from synth and cmd/replay, ids go
// back to them. Exactness is checked against ids the Rust crate made (testdata/golden).
package tokenizer
