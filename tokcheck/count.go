package tokcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Prompt is one sent prompt as replay built it: a chat request's messages (JSON, as sent) or a
// completions request's prompt text, and the prompt tokens replay's rows record for it.
type Prompt struct {
	ID       string
	Chat     bool
	Messages json.RawMessage // chat: the messages array as sent
	Text     string          // completions: the prompt as sent
	Want     int64           // replay's count: the row's targeted prompt tokens
}

// Server is one endpoint's tokenize route.
type Server struct {
	HTTP    *http.Client
	Base    string // the endpoint without /v1
	Model   string
	Dialect Dialect
}

// Count is the number of tokens the server makes of p, through its chat template for a chat
// prompt and with the special tokens it adds to a completions prompt.
func (s Server) Count(ctx context.Context, p Prompt) (int64, error) {
	switch s.Dialect {
	case LlamaCpp:
		return s.llamaCount(ctx, p)
	case VLLM:
		return s.vllmCount(ctx, p)
	}
	return 0, fmt.Errorf("tokcheck: dialect %q: no tokenize route known", s.Dialect)
}

// llamaCount: a chat prompt is templated by /apply-template first; /tokenize then adds BOS
// (add_special) and reads special-token text as the tokens (parse_special), as llama-server does
// with a completions or templated chat prompt.
func (s Server) llamaCount(ctx context.Context, p Prompt) (int64, error) {
	text := p.Text
	if p.Chat {
		var tpl struct {
			Prompt *string `json:"prompt"`
		}
		if err := s.post(ctx, "/apply-template", map[string]any{"messages": p.Messages}, &tpl); err != nil {
			return 0, err
		}
		if tpl.Prompt == nil {
			return 0, fmt.Errorf("tokcheck: %s/apply-template: answer has no prompt", s.Base)
		}
		text = *tpl.Prompt
	}
	var tok struct {
		Tokens *[]json.RawMessage `json:"tokens"`
	}
	body := map[string]any{"content": text, "add_special": true, "parse_special": true}
	if err := s.post(ctx, "/tokenize", body, &tok); err != nil {
		return 0, err
	}
	if tok.Tokens == nil {
		return 0, fmt.Errorf("tokcheck: %s/tokenize: answer has no tokens", s.Base)
	}
	return int64(len(*tok.Tokens)), nil
}

// vllmCount: vLLM's /tokenize takes the chat messages (templated with the generation prompt,
// as a chat completion is) or the completions prompt with its special tokens.
func (s Server) vllmCount(ctx context.Context, p Prompt) (int64, error) {
	body := map[string]any{"model": s.Model}
	if p.Chat {
		body["messages"] = p.Messages
		body["add_generation_prompt"] = true
	} else {
		body["prompt"] = p.Text
		body["add_special_tokens"] = true
	}
	var tok struct {
		Count  *int64  `json:"count"`
		Tokens []int64 `json:"tokens"`
	}
	if err := s.post(ctx, "/tokenize", body, &tok); err != nil {
		return 0, err
	}
	if tok.Count == nil {
		return 0, fmt.Errorf("tokcheck: %s/tokenize: answer has no count", s.Base)
	}
	return *tok.Count, nil
}

// post sends body as JSON to the route and decodes a 200 answer into out.
func (s Server) post(ctx context.Context, route string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("tokcheck: %s: %w", route, err)
	}
	url := strings.TrimSuffix(s.Base, "/") + route
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("tokcheck: %s: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	// net/http's transport may send it again when the server closed the reused connection
	// before a byte of answer (llama-server closes one after every streamed answer, as the
	// run's last were); with no value the key is not sent (client/resend.go has the rule).
	req.Header["X-Idempotency-Key"] = nil
	hc := s.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("tokcheck: %s: %w", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("tokcheck: %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("tokcheck: %s: HTTP %d: %.200s", url, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("tokcheck: %s: answer: %w", url, err)
	}
	return nil
}
