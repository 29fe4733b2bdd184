package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Request is a parsed chat or completions request body, reduced to what the simulator uses.
type Request struct {
	// Chat is true for /v1/chat/completions.
	Chat  bool
	Model string
	// Messages holds a chat request's messages.
	Messages []Message
	// PromptText is a completions prompt given as text.
	PromptText string
	// PromptIDs is a completions prompt given as token ids (HasIDs is then true).
	PromptIDs []int
	HasIDs    bool
	// MaxTokens is max_tokens, else max_completion_tokens, else the configured default.
	MaxTokens    int
	MinTokens    int
	IgnoreEOS    bool
	Stream       bool
	IncludeUsage bool
}

// wireRequest is the JSON shape accepted on both endpoints.
type wireRequest struct {
	Model               string          `json:"model"`
	Messages            []wireMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           *int            `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	N *int `json:"n"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Name    string          `json:"name"`
	Content json.RawMessage `json:"content"`
}

type wirePart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ParseRequest decodes a request body. chat selects the chat schema (messages) over the
// completions one (prompt: a string, a one-element list of strings, a list of token ids or a
// one-element list of id lists). defaultMaxTokens applies when the body gives no limit.
// Errors name the field at fault; nothing panics on any input.
//
// Common bodies take a fast path that reads only the fields used (zero-cost mode spends most of
// its own time here); anything unusual goes through encoding/json, and a fuzz test checks
// that both give the same result wherever the fast path answers.
func ParseRequest(body []byte, chat bool, defaultMaxTokens int) (Request, error) {
	if r, err, ok := fastParse(body, chat, defaultMaxTokens); ok {
		return r, err
	}
	return slowParse(body, chat, defaultMaxTokens)
}

// limits are the scalar fields both parsers extract.
type limits struct {
	n, maxTokens, maxCompletionTokens, minTokens *int
}

// applyLimits checks n, max_tokens and min_tokens and sets them on r.
func applyLimits(l limits, defaultMaxTokens int, r *Request) error {
	if l.n != nil && *l.n != 1 {
		return fmt.Errorf("request body: field \"n\": only n=1 is simulated, got %d", *l.n)
	}
	switch {
	case l.maxTokens != nil:
		r.MaxTokens = *l.maxTokens
	case l.maxCompletionTokens != nil:
		r.MaxTokens = *l.maxCompletionTokens
	default:
		r.MaxTokens = defaultMaxTokens
	}
	if r.MaxTokens < 1 {
		return fmt.Errorf("request body: field \"max_tokens\": must be >= 1, got %d", r.MaxTokens)
	}
	if l.minTokens != nil {
		r.MinTokens = *l.minTokens
		if r.MinTokens < 0 || r.MinTokens > r.MaxTokens {
			return fmt.Errorf("request body: field \"min_tokens\": must be in [0, max_tokens=%d], got %d", r.MaxTokens, r.MinTokens)
		}
	}
	return nil
}

var errNoMessages = errors.New("request body: field \"messages\": missing or empty")

func promptError(err error) error { return fmt.Errorf("request body: field \"prompt\": %w", err) }

// slowParse is ParseRequest through encoding/json.
func slowParse(body []byte, chat bool, defaultMaxTokens int) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, fmt.Errorf("request body: %w", err)
	}
	r := Request{Chat: chat, Model: w.Model, IgnoreEOS: w.IgnoreEOS, Stream: w.Stream}
	if w.StreamOptions != nil {
		r.IncludeUsage = w.StreamOptions.IncludeUsage
	}
	if err := applyLimits(limits{w.N, w.MaxTokens, w.MaxCompletionTokens, w.MinTokens}, defaultMaxTokens, &r); err != nil {
		return Request{}, err
	}
	if chat {
		if len(w.Messages) == 0 {
			return Request{}, errNoMessages
		}
		r.Messages = make([]Message, len(w.Messages))
		for i, m := range w.Messages {
			text, err := messageText(m.Content)
			if err != nil {
				return Request{}, fmt.Errorf("request body: field \"messages[%d].content\": %w", i, err)
			}
			r.Messages[i] = Message{Role: m.Role, Name: m.Name, Content: text}
		}
		return r, nil
	}
	if err := parsePrompt(w.Prompt, &r); err != nil {
		return Request{}, promptError(err)
	}
	return r, nil
}

// messageText joins the text parts of a message content: a string, null, or a list of parts of
// which only {"type":"text"} ones carry text.
func messageText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '[':
		var parts []wirePart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	return "", errors.New("must be a string, null or a list of content parts")
}

// parsePrompt fills PromptText or PromptIDs. Batched prompts (several strings or id lists) are
// refused: a replay sends one prompt per request, and one sequence per request keeps the model
// simple.
func parsePrompt(raw json.RawMessage, r *Request) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return errors.New("missing")
	}
	if raw[0] == '"' {
		return json.Unmarshal(raw, &r.PromptText)
	}
	if raw[0] != '[' {
		return errors.New("must be a string, a list of strings or a list of token ids")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return err
	}
	if len(items) == 0 {
		return errors.New("empty list")
	}
	first := bytes.TrimSpace(items[0])
	if len(first) == 0 {
		return errors.New("empty element")
	}
	switch first[0] {
	case '"':
		if len(items) != 1 {
			return fmt.Errorf("batched prompts are not simulated (got %d strings)", len(items))
		}
		return json.Unmarshal(first, &r.PromptText)
	case '[':
		if len(items) != 1 {
			return fmt.Errorf("batched prompts are not simulated (got %d id lists)", len(items))
		}
		raw = first
	}
	var ids []int
	if err := json.Unmarshal(raw, &ids); err != nil {
		return fmt.Errorf("token ids: %w", err)
	}
	if err := checkIDs(ids); err != nil {
		return err
	}
	r.PromptIDs, r.HasIDs = ids, true
	return nil
}

// checkIDs refuses empty id lists and negative ids.
func checkIDs(ids []int) error {
	if len(ids) == 0 {
		return errors.New("empty token id list")
	}
	for i, id := range ids {
		if id < 0 {
			return fmt.Errorf("token id [%d] is negative: %d", i, id)
		}
	}
	return nil
}
