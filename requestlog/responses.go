package requestlog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llm-replay/replay/chat"
)

// The Responses API ("Create a model response",
// https://platform.openai.com/docs/api-reference/responses/create) read as the chat messages
// an engine renders from it. Where llama.cpp
// (ggml-org/llama.cpp@03eb25f39343f1c9ecc6f85ca4f9796a6ab7b230:tools/server/server-chat.cpp,
// server_chat_convert_responses_to_chatcmpl) and vLLM
// (vllm-project/vllm@d0ac57910c16de107f5758d0e530b638d8b0f91b:
// vllm/entrypoints/openai/responses/utils.py, construct_input_messages) agree: instructions
// are a leading system message, a string input one user message, a message item a message
// of its role with its text parts, a function_call item an assistant tool call (merged into
// the assistant message before it, as both do now), a function_call_output item a tool
// message, a reasoning item the assistant turn's reasoning_content. llama.cpp refuses
// previous_response_id; vLLM, and the reader, put the previous request's conversation and
// its output before the input (see chain.go). A message's input_image parts, and input_file
// parts holding images, are its images (apiimages.go).

// parseResponsesRequest reads a Responses body's conversation into e.messages (the
// instructions first) and its previous_response_id.
func parseResponsesRequest(req map[string]any, name string, e *entry) error {
	switch v := req["instructions"].(type) {
	case nil:
	case string:
		e.messages = append(e.messages, chat.Message{Role: "system", Content: v})
		e.instructions = true
	default:
		return bad(name+".instructions", "not a string")
	}
	switch v := req["previous_response_id"].(type) {
	case nil:
	case string:
		e.prevID = v
	default:
		return bad(name+".previous_response_id", "not a string")
	}
	switch in := req["input"].(type) {
	case string:
		e.messages = append(e.messages, chat.Message{Role: "user", Content: in})
	case []any:
		if len(in) == 0 {
			return bad(name+".input", "empty")
		}
		for i, iv := range in {
			f := fmt.Sprintf("%s.input[%d]", name, i)
			item, ok := iv.(map[string]any)
			if !ok {
				return bad(f, "not an object")
			}
			var err error
			if e.messages, err = appendInputItem(e.messages, item, f, i, &e.media); err != nil {
				return err
			}
		}
	default:
		return bad(name+".input", "not a string or an array of items")
	}
	return nil
}

// lastAssistant is the last message when it is the assistant's, nil otherwise.
func lastAssistant(msgs []chat.Message) *chat.Message {
	if n := len(msgs); n > 0 && msgs[n-1].Role == "assistant" {
		return &msgs[n-1]
	}
	return nil
}

// appendInputItem adds one input item to the conversation, and a message item's images (the
// index-th item's) to imgs. f names the item, for errors.
func appendInputItem(msgs []chat.Message, item map[string]any, f string, index int, imgs *[]loggedPart) ([]chat.Message, error) {
	typ, _ := item["type"].(string)
	switch {
	case typ == "function_call":
		call, err := functionCall(item, f)
		if err != nil {
			return nil, err
		}
		if prev := lastAssistant(msgs); prev != nil {
			prev.ToolCalls = append(prev.ToolCalls, call)
			return msgs, nil
		}
		return append(msgs, chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{call}}), nil
	case typ == "function_call_output":
		id, ok := item["call_id"].(string)
		if !ok {
			return nil, bad(f+".call_id", "missing or not a string")
		}
		out, err := responsesText(item["output"])
		if err != nil {
			return nil, &fieldError{field: f + ".output", err: err}
		}
		return append(msgs, chat.Message{Role: "tool", Content: out, ToolCallID: id}), nil
	case typ == "reasoning":
		text := reasoningText(item)
		if prev := lastAssistant(msgs); prev != nil && prev.Reasoning == "" {
			prev.Reasoning = text
			return msgs, nil
		}
		return append(msgs, chat.Message{Role: "assistant", Reasoning: text}), nil
	case typ == "message" || (typ == "" && item["role"] != nil):
		return appendMessageItem(msgs, item, f, index, imgs)
	}
	return nil, bad(f+".type", "%q: only message, function_call, function_call_output and reasoning items can be counted", typ)
}

// appendMessageItem adds a message item: its role and text (and its images to imgs,
// apiimages.go). An assistant message fills the assistant turn before it when that has no
// text yet (a reasoning item's), as both engines merge them.
func appendMessageItem(msgs []chat.Message, item map[string]any, f string, index int, imgs *[]loggedPart) ([]chat.Message, error) {
	role, ok := item["role"].(string)
	if !ok {
		return nil, bad(f+".role", "missing or not a string")
	}
	text, found, err := responsesContent(item["content"], f+".content", index)
	if err != nil {
		return nil, err
	}
	*imgs = append(*imgs, found...)
	if prev := lastAssistant(msgs); role == "assistant" && prev != nil && prev.Content == "" {
		prev.Content = text
		return msgs, nil
	}
	return append(msgs, chat.Message{Role: role, Content: text}), nil
}

// functionCall reads a function_call item (or output item): {call_id, name, arguments}.
func functionCall(item map[string]any, f string) (chat.ToolCall, error) {
	var c chat.ToolCall
	members := []struct {
		key string
		dst *string
	}{{"call_id", &c.ID}, {"name", &c.Function.Name}, {"arguments", &c.Function.Arguments}}
	for _, m := range members {
		s, ok := item[m.key].(string)
		if !ok {
			return c, bad(f+"."+m.key, "missing or not a string")
		}
		*m.dst = s
	}
	c.Type = "function"
	return c, nil
}

// reasoningText is a reasoning item's text: its first content part's, else its first
// summary's (vLLM's order; llama.cpp reads the content only).
func reasoningText(item map[string]any) string {
	for _, k := range []string{"content", "summary"} {
		parts, _ := item[k].([]any)
		if len(parts) > 0 {
			if p, ok := parts[0].(map[string]any); ok {
				if s, ok := p["text"].(string); ok {
					return s
				}
			}
		}
	}
	return ""
}

// responsesText is a message's or a tool output's text: a string, or its text parts
// (input_text, output_text, and a refusal's text) joined by newlines, as a chat message's
// parts are.
func responsesText(v any) (string, error) {
	switch c := v.(type) {
	case nil:
		return "", nil
	case string:
		return c, nil
	case []any:
		parts := make([]string, 0, len(c))
		for i, pv := range c {
			p, ok := pv.(map[string]any)
			if !ok {
				return "", fmt.Errorf("part %d is not an object", i)
			}
			key := "text"
			switch t, _ := p["type"].(string); t {
			case "input_text", "output_text", "text":
			case "refusal":
				key = "refusal"
			default:
				return "", fmt.Errorf("part %d has type %q: only text parts can be counted", i, t)
			}
			s, ok := p[key].(string)
			if !ok {
				return "", fmt.Errorf("part %d has no %s", i, key)
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", errors.New("not a string or a list of parts")
}

// parseResponsesOutput reads a logged Responses answer: usage (input_tokens, output_tokens,
// the reasoning tokens), its id, its output (messages' text, function calls and reasoning
// items' text, which count toward the output; the first two as the assistant turn a chained
// request continues from) and how it ended: completed is "stop"
// ("tool_calls" when it called a function), incomplete for max_output_tokens "length".
func parseResponsesOutput(resp map[string]any, name string, e *entry) error {
	if u, ok := resp["usage"].(map[string]any); ok {
		var err error
		if e.usagePrompt, err = usageCount(u, "input_tokens", name); err != nil {
			return err
		}
		if e.usageCompletion, err = usageCount(u, "output_tokens", name); err != nil {
			return err
		}
		if err := loggedCached(u, "input_tokens_details", name, e); err != nil {
			return err
		}
		if err := loggedReasoning(u, "output_tokens_details", name, e); err != nil {
			return err
		}
	}
	e.respID, _ = resp["id"].(string)
	out, hasOut := resp["output"].([]any)
	msg := chat.Message{Role: "assistant"}
	var texts []string
	for i, ov := range out {
		f := fmt.Sprintf("%s.output[%d]", name, i)
		item, ok := ov.(map[string]any)
		if !ok {
			return bad(f, "not an object")
		}
		switch t, _ := item["type"].(string); t {
		case "message":
			s, err := responsesText(item["content"])
			if err != nil {
				return &fieldError{field: f + ".content", err: err}
			}
			texts = append(texts, s)
		case "function_call":
			call, err := functionCall(item, f)
			if err != nil {
				return err
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
			e.moreText = append(e.moreText, call.Function.Arguments)
		case "reasoning":
			if err := responsesThoughts(item, f, e); err != nil {
				return err
			}
		}
	}
	msg.Content = strings.Join(texts, "\n")
	e.responseText, e.hasResponse = msg.Content, hasOut
	if msg.Content != "" || len(msg.ToolCalls) > 0 {
		e.output = &msg
	}
	e.opts.FinishReason = responsesFinish(resp, len(msg.ToolCalls) > 0)
	return nil
}

// responsesFinish is a Responses answer's status as a chat finish_reason; "" when it does
// not map to one (failed, cancelled, in progress).
func responsesFinish(resp map[string]any, called bool) string {
	switch st, _ := resp["status"].(string); st {
	case "completed":
		if called {
			return "tool_calls"
		}
		return "stop"
	case "incomplete":
		d, _ := resp["incomplete_details"].(map[string]any)
		switch r, _ := d["reason"].(string); r {
		case "max_output_tokens":
			return "length"
		case "content_filter":
			return "content_filter"
		}
	}
	return ""
}
