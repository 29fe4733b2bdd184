package client

import (
	"fmt"
)

// api_messages.go encodes a request for Anthropic's Messages API (POST /v1/messages,
// https://docs.anthropic.com/en/api/messages): a leading system message as the top-level
// "system" string (the API has no system role in messages), the rest as {"role", "content"}
// with role user or assistant, the cap as max_tokens, stop as stop_sequences. Its requests
// carry anthropic-version (and the key as x-api-key too): do.go and direct.go.

// messagesRequest is the body's members the encoder types; the options follow raw.
type messagesRequest struct {
	Model         string   `json:"model"`
	System        string   `json:"system,omitempty"`
	Messages      []any    `json:"messages"` // chat.Messages, those with parts as apiparts.go writes them
	MaxTokens     int      `json:"max_tokens,omitempty"`
	StopSequences []string `json:"stop_sequences,omitempty"`
	Stream        bool     `json:"stream"`
}

// messagesRoles are the roles a message may have after the leading system one.
var messagesRoles = []string{"user", "assistant"}

// messagesBody is r's Messages API body, before Fields and ExtraBody.
func (c *Client) messagesBody(r Request) ([]byte, error) {
	o := r.Options
	if err := o.absent(kindMessages, "n", "seed", "presence_penalty", "frequency_penalty", "logprobs",
		"top_logprobs", "response_format", "parallel_tool_calls"); err != nil {
		return nil, err
	}
	req := messagesRequest{Model: c.modelOf(r), MaxTokens: r.MaxTokens, Stream: o.streamed()}
	if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
		req.System = r.Messages[0].Content
		r.Messages = r.Messages[1:]
		if len(r.Messages) == 0 {
			return nil, fmt.Errorf("client: the %s API needs a message after the system prompt", kindMessages)
		}
	}
	msgs, err := textMessages(r, kindMessages, messagesRoles)
	if err != nil {
		return nil, err
	}
	if req.Messages, err = blockMessages(msgs); err != nil {
		return nil, err
	}
	if o != nil {
		req.StopSequences = o.Stop
	}
	b, err := marshalSized(req, c.bodySize(r, kindMessages)+len(req.System))
	if err != nil {
		return nil, fmt.Errorf("client: encoding request: %w", err)
	}
	if o == nil {
		return b, nil
	}
	raw, err := appendFloats(nil, floatOpt{"temperature", o.Temperature}, floatOpt{"top_p", o.TopP})
	if err != nil {
		return nil, err
	}
	if raw, err = appendRawJSON(raw, rawOpt{"tools", o.Tools}, rawOpt{"tool_choice", o.ToolChoice}); err != nil {
		return nil, err
	}
	return spliceFields(b, raw)
}
