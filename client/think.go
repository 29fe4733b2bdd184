package client

import (
	"bytes"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// think.go tells thinking from answer in a stream whose server does not split them: a model
// that thinks writes its thoughts between "<think>" and "</think>" (DeepSeek-R1, Qwen3, QwQ),
// and an engine run without a reasoning parser (vLLM or SGLang without --reasoning-parser,
// llama.cpp with --reasoning-format none) streams them as content. Such a stream's content is
// thinking from a chunk that opens a think block before any answer came, up to the chunk that
// closes it; text after "</think>" in that chunk is answer. A stream whose server splits (a
// reasoning_content or reasoning delta) is taken at its word: tags in its content are text.

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// textTags reads a string value: whether it is non-empty, and its think tags (see frame).
// The raw bytes are searched unless the string has escapes ("<" may be sent as \u003c), which
// decode into the cursor's scratch first.
func textTags(c *jsoncur.Cursor) (nonEmpty, opens, closes, after bool) {
	raw, escaped, isStr := stringOrSkip(c)
	if !isStr || len(raw) == 0 {
		return false, false, false, false
	}
	if bytes.IndexByte(raw, '<') < 0 && !escaped {
		return true, false, false, false
	}
	text := c.Unquote(raw, escaped)
	opens = bytes.Contains(text, []byte(thinkOpen))
	if i := bytes.LastIndex(text, []byte(thinkClose)); i >= 0 {
		closes = true
		after = len(bytes.TrimSpace(text[i+len(thinkClose):])) > 0
	}
	return true, opens, closes, after
}

// kinds is what a chunk of f carries once think tags are read: thinking, answer or both.
// inThink is the stream's state: inside a think block opened in content.
func (st *streamState) kinds(f *frame, answered bool) (thinking, answer bool) {
	thinking, answer = f.thinking, f.answer
	if thinking {
		st.split = true // the server splits: its content is answer, whatever it holds
	}
	if st.split || !f.answer {
		return thinking, answer
	}
	if f.opens && !answered && !st.inThink {
		st.inThink = true
	}
	if !st.inThink {
		return false, true
	}
	if f.closes {
		st.inThink = false
		return true, f.after
	}
	return true, false
}
