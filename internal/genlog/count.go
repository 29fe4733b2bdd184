package genlog

import (
	"strings"
	"unicode/utf8"

	"github.com/llm-replay/replay/chat"
)

// count sets t's prompt and output lengths as a server counts them, when the configuration
// names a model, and logs the prompt's in usage (nil when the line logs no usage): the chat
// template rendered with the request's tools and encoded as is, or a completion's prompt
// encoded with special tokens; the output is usage's completion_tokens, else every choice's
// text encoded.
func (g *gen) count(t *Truth, usage map[string]any) error {
	if g.cfg.Chat == nil || g.cfg.Tokenizer == nil {
		return nil
	}
	tok := g.cfg.Tokenizer
	if t.Chat {
		text, err := g.cfg.Chat.RenderTools(t.Messages, t.Tools)
		if err != nil {
			return err
		}
		t.PromptTokens = len(tok.Encode(text, false))
	} else {
		t.PromptTokens = len(tok.Encode(t.Prompt, true))
	}
	if usage != nil {
		usage["prompt_tokens"] = t.PromptTokens
	}
	if n, ok := usage["completion_tokens"].(int); ok {
		t.OutputTokens = n
		return nil
	}
	t.OutputTokens = len(tok.Encode(t.Response, false))
	for _, r := range t.MoreResponses {
		t.OutputTokens += len(tok.Encode(r, false))
	}
	return nil
}

// logged makes t's text what its line holds: encoding/json writes each byte that is not
// UTF-8 (the generator's capitalized first letters cut some characters) as U+FFFD, and a
// server counts the text it received.
func (t *Truth) logged() {
	t.Prompt, t.Response = validUTF8(t.Prompt), validUTF8(t.Response)
	for i := range t.MoreResponses {
		t.MoreResponses[i] = validUTF8(t.MoreResponses[i])
	}
	msgs := make([]chat.Message, len(t.Messages))
	for i, m := range t.Messages {
		m.Content = validUTF8(m.Content)
		if m.ToolCalls != nil {
			m.ToolCalls = append([]chat.ToolCall(nil), m.ToolCalls...)
			for j := range m.ToolCalls {
				m.ToolCalls[j].Function.Arguments = validUTF8(m.ToolCalls[j].Function.Arguments)
			}
		}
		msgs[i] = m
	}
	if t.Messages != nil {
		t.Messages = msgs
	}
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
