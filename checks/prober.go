package checks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// prober sends the probes of one endpoint.
type prober struct {
	cfg Config
	hc  *http.Client
}

func newProber(cfg Config) (*prober, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &prober{cfg: cfg, hc: hc}, nil
}

// request is one probe request, in the terms of both APIs.
type request struct {
	prompt    string
	maxTokens int
	stream    bool
	stop      []string
	// tools, toolChoice and format are chat's.
	tools      []openai.Tool
	toolChoice any
	format     *openai.ChatCompletionResponseFormat
	// fields are set in the body after go-openai's encoding: the values its omitempty float
	// fields would drop (temperature 0), and max_tokens, whose field go-openai deprecates in
	// favour of max_completion_tokens, which fewer servers read.
	fields map[string]any
}

// body is the JSON of q, built with go-openai's request types, then q.fields.
func (p *prober) body(q request) ([]byte, error) {
	var usage *openai.StreamOptions
	if q.stream {
		usage = &openai.StreamOptions{IncludeUsage: true}
	}
	var v any
	if p.cfg.chat() {
		v = openai.ChatCompletionRequest{
			Model:    p.cfg.Model,
			Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: q.prompt}},
			Stream:   q.stream, StreamOptions: usage, Stop: q.stop,
			Tools: q.tools, ToolChoice: q.toolChoice, ResponseFormat: q.format,
		}
	} else {
		v = openai.CompletionRequest{Model: p.cfg.Model, Prompt: q.prompt, Stream: q.stream, StreamOptions: usage, Stop: q.stop}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	fields := map[string]any{"max_tokens": q.maxTokens}
	for k, f := range q.fields {
		fields[k] = f
	}
	for k, f := range fields {
		if m[k], err = json.Marshal(f); err != nil {
			return nil, fmt.Errorf("encoding the request's %s: %w", k, err)
		}
	}
	return json.Marshal(m)
}

// maxBody bounds what a probe reads of one answer: its requests ask for a few hundred tokens.
const maxBody = 4 << 20

// ask sends q and reads its answer. The error says what failed: the send, a status other than
// 2xx (with the server's bytes), or an answer that could not be read.
//
// A 429 or 503 is asked again, at most overloadRetries times after the server's Retry-After
// (at most maxRetryWait) or retryWait: an endpoint shedding load is not refusing the probe's
// fields, and the run's own answers judge its overload semantics (Overload).
func (p *prober) ask(ctx context.Context, q request) (reply, error) {
	for try := 0; ; try++ {
		r, err := p.askOnce(ctx, q)
		var se *statusError
		if try == overloadRetries || !errors.As(err, &se) || (se.status != http.StatusTooManyRequests && se.status != http.StatusServiceUnavailable) {
			if try > 0 && err != nil {
				err = fmt.Errorf("%w (after %d retries of HTTP 429/503)", err, try)
			}
			return r, err
		}
		wait := retryWait
		if se.retryAfter > 0 {
			wait = min(se.retryAfter, maxRetryWait)
		}
		select {
		case <-ctx.Done():
			return r, err
		case <-time.After(wait):
		}
	}
}

// How a probe answered 429 or 503 is asked again.
const (
	overloadRetries = 2
	maxRetryWait    = 5 * time.Second
)

// retryWait is the wait before asking again without a Retry-After (a variable for tests).
var retryWait = 500 * time.Millisecond

// askOnce sends q once and reads its answer.
func (p *prober) askOnce(ctx context.Context, q request) (reply, error) {
	body, err := p.body(q)
	if err != nil {
		return reply{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.endpoint(), bytes.NewReader(body))
	if err != nil {
		return reply{}, fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	// A probe may be sent again by net/http's transport when the server closed the reused
	// connection before a byte of answer (llama-server closes one after every streamed answer);
	// with no value the header is not sent (net/http's Transport docs). Replay's own transport
	// applies that rule to every request (client/resend.go).
	req.Header["X-Idempotency-Key"] = nil
	if p.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
	}
	start := time.Now()
	resp, err := p.hc.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("sending to %s: %v", p.cfg.endpoint(), p.redact(err.Error()))
	}
	defer resp.Body.Close()
	rd := io.LimitReader(resp.Body, maxBody)
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(rd, 4<<10))
		se := &statusError{status: resp.StatusCode, body: p.redact(string(b))}
		if secs, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && secs > 0 {
			se.retryAfter = time.Duration(secs) * time.Second
		}
		return reply{status: resp.StatusCode}, se
	}
	var r reply
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r, err = readStream(rd, start, p.cfg.chat())
	} else {
		r, err = readFull(rd, p.cfg.chat())
	}
	r.status, r.e2e = resp.StatusCode, time.Since(start)
	if err != nil {
		return r, fmt.Errorf("reading the answer: %s", p.redact(err.Error()))
	}
	return r, nil
}

// statusError is an answer whose status is not 2xx.
type statusError struct {
	status     int
	body       string
	retryAfter time.Duration // the server's Retry-After in seconds, 0 without one
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.status, quote([]byte(e.body)))
}

// redact removes the API key from text a server or the transport produced.
func (p *prober) redact(s string) string {
	if p.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, p.cfg.APIKey, "[api key]")
}
