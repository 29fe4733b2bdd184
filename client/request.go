package client

import (
	"bytes"
	"encoding/json"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
)

// Message is one chat message.
type Message struct {
	Role    string
	Content string
}

// Request is what to send. Chat uses Messages (or, when there are none, Prompt as a single
// user message); completions uses PromptIDs when non-nil (token ids, so the server sees
// exactly the tokens the caller built), else Prompt.
type Request struct {
	Prompt    string
	PromptIDs []int
	Messages  []Message
	// MaxTokens is sent as max_tokens; 0 leaves it to the server.
	MaxTokens int
}

// body builds the JSON body with go-openai's request types (go-openai's own stream calls
// are not used to send: they reject token-id prompts and some model names on completions).
func (c *Client) body(r Request) ([]byte, error) {
	var v any
	if c.api == APIChat {
		msgs := make([]openai.ChatCompletionMessage, 0, max(len(r.Messages), 1))
		for _, m := range r.Messages {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
		}
		if len(msgs) == 0 {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: r.Prompt})
		}
		v = openai.ChatCompletionRequest{
			Model:         c.model,
			Messages:      msgs,
			MaxTokens:     r.MaxTokens,
			Stream:        true,
			StreamOptions: c.usage,
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
	b, err := marshal(v)
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
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
