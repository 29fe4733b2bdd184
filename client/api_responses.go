package client

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/llm-replay/replay/chat"
)

// api_responses.go encodes a request for OpenAI's Responses API (POST /v1/responses,
// https://platform.openai.com/docs/api-reference/responses/create): the conversation as
// input items {"role", "content": text}, a system message among them as it is (role system,
// which the API and the engines that serve it, vLLM and llama.cpp, read as the system
// prompt); the cap as max_output_tokens; structured output as the whole "text" object.

// responsesRequest is the body's members the encoder types; the options follow raw.
type responsesRequest struct {
	Model           string `json:"model"`
	Input           []any  `json:"input"` // chat.Messages, those with parts as apiparts.go writes them
	MaxOutputTokens int    `json:"max_output_tokens,omitempty"`
	Stream          bool   `json:"stream"`
}

// responsesRoles are the roles an input message item may have.
var responsesRoles = []string{"user", "assistant", "system", "developer"}

// responsesBody is r's Responses API body, before Fields and ExtraBody.
func (c *Client) responsesBody(r Request) ([]byte, error) {
	o := r.Options
	if err := o.absent(kindResponses, "stop", "n", "seed", "presence_penalty", "frequency_penalty", "logprobs"); err != nil {
		return nil, err
	}
	msgs, err := textMessages(r, kindResponses, responsesRoles)
	if err != nil {
		return nil, err
	}
	req := responsesRequest{Model: c.modelOf(r), Input: inputMessages(msgs), MaxOutputTokens: r.MaxTokens, Stream: o.streamed()}
	b, err := marshalSized(req, c.bodySize(r, kindResponses))
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
	if o.TopLogprobs != nil {
		raw = appendRaw(raw, "top_logprobs", strconv.AppendInt(nil, int64(*o.TopLogprobs), 10))
	}
	if o.ParallelToolCalls != nil {
		raw = appendRaw(raw, "parallel_tool_calls", strconv.AppendBool(nil, *o.ParallelToolCalls))
	}
	raw, err = appendRawJSON(raw, rawOpt{"tools", o.Tools}, rawOpt{"tool_choice", o.ToolChoice}, rawOpt{"text", o.ResponseFormat})
	if err != nil {
		return nil, err
	}
	return spliceFields(b, raw)
}

// textMessages is r's conversation for a chat-family API other than chat: Messages, or
// Prompt as one user message. Each must be plain text with a role in roles: tool calls and
// tool answers have their own item shapes in these APIs, which this encoder does not write.
func textMessages(r Request, api apiKind, roles []string) ([]chat.Message, error) {
	if len(r.Messages) == 0 {
		return []chat.Message{{Role: "user", Content: r.Prompt}}, nil
	}
	for i, m := range r.Messages {
		switch {
		case len(m.ToolCalls) > 0 || m.ToolCallID != "" || m.Name != "":
			return nil, fmt.Errorf("client: message %d has tool calls, a tool call id or a name, which the %s encoder does not send", i, api)
		case !slices.Contains(roles, m.Role):
			return nil, fmt.Errorf("client: message %d has the role %q, which the %s API does not take", i, m.Role, api)
		}
	}
	return r.Messages, nil
}
