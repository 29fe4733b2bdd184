package client

import (
	"bytes"
	"encoding/json"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llm-replay/replay/chat"
)

// Request is what to send. Chat uses Messages (or, when there are none, Prompt as a single
// user message); completions uses PromptIDs when non-nil (token ids, so the server sees
// exactly the tokens the caller built), else Prompt.
type Request struct {
	Prompt    string
	PromptIDs []int
	Messages  []chat.Message
	// MaxTokens is sent as max_tokens; 0 leaves it to the server. When it is above 0 the
	// answer must hold a content chunk, and a finish_reason "length" short of it is ErrShort.
	MaxTokens int
	// ID, when non-empty, is sent as the X-Request-Id header: servers and gateways log it, so
	// their logs join the result rows. A value with control bytes fails as ErrClient.
	ID string
}

// chatRequest is go-openai's request with the messages encoded by a plain struct: go-openai's
// ChatCompletionMessage.MarshalJSON marshals each message on its own and encoding/json then
// re-scans that output byte by byte, which cost ~25 µs per KB of prompt (BenchmarkRequest).
// The shallower Messages field shadows the embedded one; chat.Message is the text-only shape
// of openai.ChatCompletionMessage, and encodes as plain struct fields.
type chatRequest struct {
	openai.ChatCompletionRequest
	Messages []chat.Message `json:"messages"`
}

// body builds the JSON body with go-openai's request types (go-openai's own stream calls
// are not used to send: they reject token-id prompts and some model names on completions).
func (c *Client) body(r Request) ([]byte, error) {
	var v any
	if c.api == APIChat {
		msgs := r.Messages
		if len(msgs) == 0 {
			msgs = []chat.Message{{Role: openai.ChatMessageRoleUser, Content: r.Prompt}}
		}
		v = chatRequest{
			ChatCompletionRequest: openai.ChatCompletionRequest{
				Model: c.model,
				//lint:ignore SA1019 vLLM, SGLang and Ollama read max_tokens; max_completion_tokens is not universal.
				MaxTokens:     r.MaxTokens,
				Stream:        true,
				StreamOptions: c.usage,
			},
			Messages: msgs,
		}
	} else {
		var prompt any = r.Prompt
		if r.PromptIDs != nil {
			prompt = r.PromptIDs
		}
		v = openai.CompletionRequest{
			Model:         c.model,
			Prompt:        prompt,
			MaxTokens:     r.MaxTokens,
			Stream:        true,
			StreamOptions: c.usage,
		}
	}
	// Size the buffer once: the prompt dominates the body and regrowing it cost ~15% of a
	// request's CPU. Token ids take up to 7 bytes each.
	size := 256 + len(c.extraSuffix)
	switch {
	case c.api == APIChat && len(r.Messages) > 0:
		for _, m := range r.Messages {
			size += 32 + len(m.Content)
		}
	case c.api == APICompletions && r.PromptIDs != nil:
		size += 7 * len(r.PromptIDs)
	default:
		size += len(r.Prompt)
	}
	b, err := marshalSized(v, size)
	if err != nil {
		return nil, fmt.Errorf("client: encoding request: %w", err)
	}
	return c.addExtra(b)
}

// addExtra merges Config.ExtraBody into a body object.
func (c *Client) addExtra(b []byte) ([]byte, error) {
	if len(c.extraRaw) == 0 {
		return b, nil
	}
	if !c.extraMerge {
		if len(b) < 2 || b[len(b)-1] != '}' {
			return nil, fmt.Errorf("client: encoding request: body is not an object")
		}
		if len(b) == 2 { // "{}": no comma before the first extra field
			return append([]byte{'{'}, c.extraSuffix[1:]...), nil
		}
		return append(b[:len(b)-1], c.extraSuffix...), nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("client: encoding request: %w", err)
	}
	for k, v := range c.extraRaw {
		m[k] = v
	}
	return marshal(m)
}

// marshal encodes v without HTML escaping (prompts are full of < and &; escaping them would
// only inflate the body) and without the encoder's trailing newline.
func marshal(v any) ([]byte, error) { return marshalSized(v, 64) }

func marshalSized(v any, size int) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
