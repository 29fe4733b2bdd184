package requestlog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llm-replay/replay/chat"
)

// Anthropic's Messages API ("Messages", https://docs.anthropic.com/en/api/messages) read as
// the chat messages an engine renders from it, as vLLM converts it
// (vllm-project/vllm@0001948bc76939369ca855c90b36d81256477e85:
// vllm/entrypoints/anthropic/serving.py, _convert_anthropic_to_openai_request); llama.cpp's
// conversion (ggml-org/llama.cpp@03eb25f39343f1c9ecc6f85ca4f9796a6ab7b230:
// tools/server/server-chat.cpp, server_chat_convert_anthropic_to_oai) agrees but where said.
// The system prompt (a string, or its text blocks joined with nothing between them, as both
// join them) is a leading system message; a message's text blocks are its content, joined by
// newlines (vLLM hands several as parts, which its chat parser joins so); tool_use blocks are
// the assistant's tool calls, their input as the arguments; tool_result blocks are tool
// messages, placed before the rest of their user message (vLLM; llama.cpp puts them after
// it), a result's text blocks joined by newlines (llama.cpp joins them with nothing); thinking
// blocks are the turn's reasoning_content, which both engines hand the template (Qwen3's
// renders it in the turns after the last user query, Llama 3.1's never), redacted_thinking
// blocks are dropped. A user message of tool results only adds no user message (vLLM). Image
// blocks are the message's images (apiimages.go), and a message holding any is chat's content
// list with images: its text blocks one after the other.

// useRef places an Anthropic tool_use block's input: the tool call it became
// (e.messages[msg].ToolCalls[call]) and where it sits in the body
// (messages[srcMsg].content[srcBlock]).
type useRef struct{ msg, call, srcMsg, srcBlock int }

// parseAnthropicRequest reads a Messages body's system prompt and messages into e.messages.
func parseAnthropicRequest(req map[string]any, name string, e *entry) error {
	system, err := anthropicSystem(req["system"], name+".system")
	if err != nil {
		return err
	}
	list, ok := req["messages"].([]any)
	if !ok {
		return bad(name+".messages", "not an array")
	}
	if len(list) == 0 {
		return bad(name+".messages", "empty")
	}
	for i, mv := range list {
		f := fmt.Sprintf("%s.messages[%d]", name, i)
		m, ok := mv.(map[string]any)
		if !ok {
			return bad(f, "not an object")
		}
		role, ok := m["role"].(string)
		if !ok {
			return bad(f+".role", "missing or not a string")
		}
		if role == "system" { // not in the API, but vLLM folds such messages into the system prompt
			s, err := anthropicSystem(m["content"], f+".content")
			if err != nil {
				return err
			}
			system += s
			continue
		}
		if err := appendAnthropicMessage(e, role, m["content"], i, f); err != nil {
			return err
		}
	}
	if system != "" {
		e.messages = append([]chat.Message{{Role: "system", Content: system}}, e.messages...)
		for i := range e.useRefs {
			e.useRefs[i].msg++
		}
	}
	return nil
}

// anthropicSystem is a system prompt's text: a string, or its text blocks' text joined.
func anthropicSystem(v any, f string) (string, error) {
	switch s := v.(type) {
	case nil:
		return "", nil
	case string:
		return s, nil
	case []any:
		var sb strings.Builder
		for i, bv := range s {
			b, ok := bv.(map[string]any)
			if !ok {
				return "", bad(fmt.Sprintf("%s[%d]", f, i), "not an object")
			}
			if t, _ := b["type"].(string); t == "text" {
				text, _ := b["text"].(string)
				sb.WriteString(text)
			}
		}
		return sb.String(), nil
	}
	return "", bad(f, "not a string or a list of text blocks")
}

// appendAnthropicMessage adds message i (role, content) of the body to e.messages: its tool
// results as tool messages, then the message itself.
func appendAnthropicMessage(e *entry, role string, content any, i int, f string) error {
	switch c := content.(type) {
	case string:
		e.messages = append(e.messages, chat.Message{Role: role, Content: c})
		return nil
	case []any:
		msg := chat.Message{Role: role}
		var texts, thinking []string
		var refs []useRef
		var imgs []loggedPart
		parts := contentParts(c)
		for j, bv := range c {
			bf := fmt.Sprintf("%s.content[%d]", f, j)
			b, ok := bv.(map[string]any)
			if !ok {
				return bad(bf, "not an object")
			}
			switch t, _ := b["type"].(string); t {
			case "text":
				if s, _ := b["text"].(string); s != "" {
					texts = append(texts, s)
				}
			case "thinking":
				s, _ := b["thinking"].(string)
				thinking = append(thinking, s)
			case "redacted_thinking":
			case "image": // apiimages.go
				img, err := anthropicImage(b, bf)
				if err != nil {
					return err
				}
				img.message, img.part, img.parts = i, parts[j], parts[len(c)]
				imgs = append(imgs, img)
			case "tool_use":
				call, err := toolUseCall(b, bf)
				if err != nil {
					return err
				}
				refs = append(refs, useRef{call: len(msg.ToolCalls), srcMsg: i, srcBlock: j})
				msg.ToolCalls = append(msg.ToolCalls, call)
			case "tool_result":
				if err := appendToolResult(e, role, b, bf); err != nil {
					return err
				}
			default:
				return bad(bf+".type", "%q: only text, image, thinking, tool_use and tool_result blocks can be counted", t)
			}
		}
		sep := "\n"
		if len(imgs) > 0 { // a message with images is chat's content list with images: its text parts one after the other
			sep = ""
		}
		msg.Content, msg.Reasoning = strings.Join(texts, sep), strings.Join(thinking, "")
		e.media = append(e.media, imgs...)
		if role == "user" && len(texts) == 0 && len(imgs) == 0 {
			return nil
		}
		for _, r := range refs {
			r.msg = len(e.messages)
			e.useRefs = append(e.useRefs, r)
		}
		e.messages = append(e.messages, msg)
		return nil
	}
	return bad(f, "not a string or a list of content blocks")
}

// toolUseCall is a tool_use block as a tool call. Its arguments are the input written back
// with sorted keys here; the reader puts them in their logged order from the body's text.
func toolUseCall(b map[string]any, f string) (chat.ToolCall, error) {
	id, _ := b["id"].(string)
	name, ok := b["name"].(string)
	if !ok {
		return chat.ToolCall{}, bad(f+".name", "missing or not a string")
	}
	input := b["input"]
	if input == nil {
		input = map[string]any{}
	}
	args, err := json.Marshal(input)
	if err != nil {
		return chat.ToolCall{}, &fieldError{field: f + ".input", err: err}
	}
	return chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: string(args)}}, nil
}

// appendToolResult adds a tool_result block of a user message as a tool message.
func appendToolResult(e *entry, role string, b map[string]any, f string) error {
	if role != "user" {
		return bad(f, "a tool_result block in a %s message: only users send tool results", role)
	}
	id, ok := b["tool_use_id"].(string)
	if !ok {
		return bad(f+".tool_use_id", "missing or not a string")
	}
	var text string
	switch c := b["content"].(type) {
	case nil:
	case string:
		text = c
	case []any:
		var parts []string
		for k, pv := range c {
			p, _ := pv.(map[string]any)
			if t, _ := p["type"].(string); t != "text" {
				return bad(fmt.Sprintf("%s.content[%d]", f, k), "type %q: only text can be counted", t)
			}
			s, _ := p["text"].(string)
			parts = append(parts, s)
		}
		text = strings.Join(parts, "\n")
	default:
		return bad(f+".content", "not a string or a list of blocks")
	}
	e.messages = append(e.messages, chat.Message{Role: "tool", Content: text, ToolCallID: id})
	return nil
}

// parseAnthropicResponse reads a logged Messages answer: usage (the prompt is input_tokens
// with the cache's read and written tokens, which Anthropic counts apart; output_tokens),
// its text blocks (the answer), tool_use inputs and thinking (which count toward the output;
// the thinking, which the usage does not break out, is the reasoning count: reasoning.go)
// and stop_reason as a chat finish_reason.
func parseAnthropicResponse(resp map[string]any, name string, e *entry) error {
	if u, ok := resp["usage"].(map[string]any); ok {
		var err error
		if e.usagePrompt, err = usageCount(u, "input_tokens", name); err != nil {
			return err
		}
		for _, k := range []string{"cache_read_input_tokens", "cache_creation_input_tokens"} {
			n, err := usageCount(u, k, name)
			if err != nil {
				return err
			}
			if n > 0 && e.usagePrompt >= 0 {
				e.usagePrompt += n
			}
			if k == "cache_read_input_tokens" && n >= 0 {
				e.opts.CachedTokens = &n // the log's own count of prompt tokens read from the cache
			}
		}
		if e.usageCompletion, err = usageCount(u, "output_tokens", name); err != nil {
			return err
		}
	}
	blocks, has := resp["content"].([]any)
	var texts []string
	for _, bv := range blocks {
		b, _ := bv.(map[string]any)
		switch t, _ := b["type"].(string); t {
		case "text":
			s, _ := b["text"].(string)
			texts = append(texts, s)
		case "thinking":
			s, _ := b["thinking"].(string)
			e.thinking.beside, e.thinking.logged = append(e.thinking.beside, s), true
		case "redacted_thinking":
			e.thinking.hidden = true
		case "tool_use":
			args, _ := json.Marshal(b["input"])
			e.moreText = append(e.moreText, string(args))
		}
	}
	e.responseText, e.hasResponse = strings.Join(texts, "\n"), has
	switch r, _ := resp["stop_reason"].(string); r {
	case "max_tokens":
		e.opts.FinishReason = "length"
	case "end_turn", "stop_sequence":
		e.opts.FinishReason = "stop"
	case "tool_use":
		e.opts.FinishReason = "tool_calls"
	case "refusal":
		e.opts.FinishReason = "content_filter"
	}
	return nil
}

// contentParts numbers a message's text and image blocks, the parts of the chat message an
// engine makes of it (tool results become messages of their own, tool calls and thinking are
// no content parts): parts[j] is block j's index among them, parts[len(blocks)] their number.
func contentParts(blocks []any) []int {
	parts := make([]int, len(blocks)+1)
	n := 0
	for j, bv := range blocks {
		parts[j] = n
		if b, ok := bv.(map[string]any); ok && (b["type"] == "text" || b["type"] == "image") {
			n++
		}
	}
	parts[len(blocks)] = n
	return parts
}
