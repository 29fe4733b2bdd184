package sim

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
)

// prompt is what the engine needs of a request's prompt: its token count and the chained hashes
// of its full blocks.
type prompt struct {
	tokens int
	// media are the tokens of its images and clips (part of tokens), which the encoder runs on.
	media int
	// adapter is the LoRA adapter the request names ("" for a base model): adapters.go.
	adapter string
	// hashes[i] identifies blocks 0..i: each hash covers the block's content and its whole
	// prefix, so equal hashes mean equal prefixes.
	hashes []uint64
}

// approxBytesPerToken sizes the byte chunks used as cache blocks when no Tokenize hook is set.
const approxBytesPerToken = 4

// buildPrompt counts the prompt and hashes its blocks. Token ids are hashed as sent. Text is
// tokenized with cfg.Tokenize when set; otherwise blocks are BlockSize*4-byte chunks of the
// rendered text, an approximation that still gives equal prefixes equal hashes.
func buildPrompt(cfg *Config, r *Request) (prompt, error) {
	var p prompt
	var text string
	var ids []int
	switch {
	case r.HasIDs:
		p.tokens = len(r.PromptIDs)
	case r.Chat:
		text = renderChat(r.Messages, r.Tools)
		if cfg.ChatCounter != nil {
			n, err := cfg.ChatCounter(r.Messages, r.Tools)
			if err != nil {
				return prompt{}, fmt.Errorf("counting chat prompt: %w", err)
			}
			p.tokens = n
		} else {
			p.tokens = 3
			if len(r.Tools) > 0 {
				p.tokens += cfg.Counter.Count(string(r.Tools))
			}
			for _, m := range r.Messages {
				p.tokens += 3 + cfg.Counter.Count(m.Content)
				if len(m.ToolCalls) > 0 {
					p.tokens += cfg.Counter.Count(string(m.ToolCalls))
				}
			}
		}
	default:
		text = r.PromptText
		if cfg.Tokenize != nil && !cfg.ZeroCost {
			// One encode serves both the count and the cache blocks: a real tokenizer's
			// encode is the most expensive thing the simulator does per request.
			ids = cfg.Tokenize(text)
			p.tokens = len(ids)
		} else {
			p.tokens = cfg.Counter.Count(text)
		}
	}
	if r.Chat {
		n, err := mediaTokens(cfg, r.Messages)
		if err != nil {
			return prompt{}, err
		}
		p.tokens += n
		p.media = n
	}
	if p.tokens <= 0 {
		return prompt{}, fmt.Errorf("request body: field \"prompt\": empty prompt (0 tokens)")
	}
	if cfg.ZeroCost {
		return p, nil // no cache in zero-cost mode: skip the hashing work
	}
	// Like vLLM, at least the last prompt token is always computed, so only blocks ending before
	// it can be cache hits.
	maxBlocks := (p.tokens - 1) / cfg.BlockSize
	if r.HasIDs {
		ids = r.PromptIDs
	} else if ids == nil && cfg.Tokenize != nil {
		ids = cfg.Tokenize(text)
	}
	if r.HasIDs || cfg.Tokenize != nil {
		p.hashes = hashIDBlocks(ids, cfg.BlockSize, maxBlocks)
	} else {
		p.hashes = hashByteBlocks(text, cfg.BlockSize*approxBytesPerToken, maxBlocks)
	}
	if cfg.adapter { // an adapter's KV is its own: vLLM keys each block by the LoRA too
		p.adapter = cfg.ModelName
		salt := fnv.New64a()
		salt.Write([]byte(cfg.ModelName))
		for i := range p.hashes {
			p.hashes[i] ^= salt.Sum64()
		}
	}
	return p, nil
}

// renderChat is the text whose blocks identify a chat prompt. It is not any model's template;
// it only needs equal conversations to render equally and different ones differently. The
// tools come first, as templates put them in the system turn or the first user turn, so
// requests offering the same tools share a prefix.
func renderChat(msgs []Message, tools []byte) string {
	var b strings.Builder
	if len(tools) > 0 {
		b.WriteString("<|tools|>\n")
		b.Write(tools)
		b.WriteString("\n")
	}
	for _, m := range msgs {
		b.WriteString("<|")
		b.WriteString(m.Role)
		if m.Name != "" {
			b.WriteByte(':')
			b.WriteString(m.Name)
		}
		b.WriteString("|>\n")
		b.WriteString(m.Content)
		b.WriteString("\n")
		for _, img := range m.Images {
			fmt.Fprintf(&b, "<|image:%016x|>\n", img.Hash) // equal images, equal blocks
		}
		for _, c := range m.Audio {
			fmt.Fprintf(&b, "<|audio:%016x|>\n", c.Hash) // and equal clips
		}
		if len(m.ToolCalls) > 0 || m.ToolCallID != "" {
			b.WriteString("<|calls:")
			b.WriteString(m.ToolCallID)
			b.WriteString("|>\n")
			b.Write(m.ToolCalls)
			b.WriteString("\n")
		}
	}
	return b.String()
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hashIDBlocks chains FNV-1a hashes over full blocks of ids, at most maxBlocks of them.
func hashIDBlocks(ids []int, blockSize, maxBlocks int) []uint64 {
	n := min(len(ids)/blockSize, maxBlocks)
	out := make([]uint64, n)
	h := uint64(fnvOffset)
	var buf [8]byte
	for i := range n {
		for _, id := range ids[i*blockSize : (i+1)*blockSize] {
			binary.LittleEndian.PutUint64(buf[:], uint64(id))
			for _, c := range buf {
				h = (h ^ uint64(c)) * fnvPrime
			}
		}
		out[i] = h
	}
	return out
}

// hashByteBlocks chains FNV-1a hashes over full chunks of size bytes, at most maxBlocks of them.
func hashByteBlocks(text string, size, maxBlocks int) []uint64 {
	n := min(len(text)/size, maxBlocks)
	out := make([]uint64, n)
	h := uint64(fnvOffset)
	for i := range n {
		chunk := text[i*size : (i+1)*size]
		for j := 0; j < len(chunk); j++ {
			h = (h ^ uint64(chunk[j])) * fnvPrime
		}
		out[i] = h
	}
	return out
}
