package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// ProbeResult is what one forcing probe saw.
type ProbeResult struct {
	Engine Engine
	// Fields are the forcing fields sent (e.ForceFields(Want)); nil when e has none.
	Fields map[string]any
	// Want is the max_tokens asked; Got the answer's usage.completion_tokens, -1 without usage.
	Want, Got int
	// FinishReason is the answer's choices[0].finish_reason ("length" when it ran to the cap).
	FinishReason string
	// Status is the HTTP status, 0 when no answer came.
	Status int
	// Forced is true when the output ran to exactly Want tokens.
	Forced bool
	// Note is the verdict in a sentence, for the run to print before it starts.
	Note string
}

// probePrompt asks for an answer far shorter than any forced length: a model stops after a
// word or two unless something keeps it going.
const probePrompt = "Say OK."

// probeRequestTimeout bounds the probe when ctx has no deadline: a cold engine may load the
// model first, which takes seconds.
const probeRequestTimeout = 2 * time.Minute

// ProbeForcing sends one request for n tokens (32 when n <= 0) of a prompt that stops early,
// with e's forcing fields, and reports whether the answer's usage says it ran to n. It is not
// streamed: a whole answer always carries usage, whatever the server's stream_options support.
// baseURL is the API root (--endpoint, e.g. http://127.0.0.1:8000/v1); api is "chat"
// (/chat/completions) or "completions" (/completions): a run of the other APIs probes as the
// runner maps them (the Responses and Messages APIs as chat, embeddings as completions), and
// ForcesOn says where the fields do not reach; c carries the API
// key (WithBearer). An HTTP error is a result (a server that rejects the fields), not an
// error; errors are for bad arguments and answers that never came.
func ProbeForcing(ctx context.Context, c *http.Client, baseURL, api, model string, e Engine, n int) (ProbeResult, error) {
	if n <= 0 {
		n = 32
	}
	fields := e.ForceFields(n)
	url, body, err := probeRequest(baseURL, api, model, fields, n)
	if err != nil {
		return ProbeResult{}, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, probeRequestTimeout)
		defer cancel()
	}
	r := send(ctx, clientOr(c), http.MethodPost, url, body, smallBody)
	if r.err != nil && r.status == 0 {
		return ProbeResult{}, fmt.Errorf("engine: forcing probe: POST %s: %w", url, r.err)
	}
	res := ProbeResult{Engine: e, Fields: fields, Want: n, Got: -1, Status: r.status}
	res.read(r)
	res.Note = res.verdict(snippet(r.body))
	return res, nil
}

// probeRequest builds the probe's URL and body; fields override the body's own keys.
func probeRequest(baseURL, api, model string, fields map[string]any, n int) (string, []byte, error) {
	if _, err := ServerRoot(baseURL); err != nil {
		return "", nil, err
	}
	if model == "" {
		return "", nil, fmt.Errorf("engine: forcing probe: no model")
	}
	body := map[string]any{"model": model, "max_tokens": n, "stream": false}
	base := strings.TrimRight(baseURL, "/")
	var url string
	switch api {
	case "chat":
		url = base + "/chat/completions"
		body["messages"] = []map[string]string{{"role": "user", "content": probePrompt}}
	case "completions":
		url = base + "/completions"
		body["prompt"] = probePrompt + "\n"
	default:
		return "", nil, fmt.Errorf(`engine: forcing probe: API %q: want "chat" or "completions"`, api)
	}
	maps.Copy(body, fields)
	b, err := json.Marshal(body)
	return url, b, err
}

// read takes usage and the finish reason from a 2xx answer.
func (p *ProbeResult) read(r reply) {
	if !r.ok() {
		return
	}
	var ans struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			CompletionTokens *int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(r.body, &ans) != nil {
		return
	}
	if len(ans.Choices) > 0 {
		p.FinishReason = ans.Choices[0].FinishReason
	}
	if ans.Usage != nil && ans.Usage.CompletionTokens != nil {
		p.Got = *ans.Usage.CompletionTokens
	}
	p.Forced = p.Got == p.Want
}

// verdict is the probe's sentence.
func (p ProbeResult) verdict(body string) string {
	sent := "no forcing field (" + p.Engine.Label() + " has none)"
	if p.Fields != nil {
		sent = "sent " + fieldList(p.Fields)
	}
	asked := fmt.Sprintf("asked %d tokens of a prompt that stops early (%s)", p.Want, sent)
	switch {
	case p.Status/100 != 2:
		return fmt.Sprintf("forcing probe failed: %s; the server answered HTTP %d: %s", asked, p.Status, body)
	case p.Got < 0:
		return fmt.Sprintf("forcing probe inconclusive: %s; the answer carried no usage.completion_tokens", asked)
	case p.Forced && p.Fields != nil:
		return fmt.Sprintf("output length forced: %s, got %d", asked, p.Got)
	case p.Forced:
		return fmt.Sprintf("%s, yet got %d: the model ran to the cap on its own, so lengths reach their targets only while it does not stop early", asked, p.Got)
	case p.Fields != nil:
		return fmt.Sprintf("forcing does not work on this endpoint: %s, got %d (finish_reason %q); output lengths will fall short of their targets", asked, p.Got, p.FinishReason)
	}
	return fmt.Sprintf("%s; got %d (finish_reason %q): %s", asked, p.Got, p.FinishReason, p.Engine.ForceNote())
}

// fieldList writes fields as k=v in key order.
func fieldList(f map[string]any) string {
	keys := slices.Sorted(maps.Keys(f))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, f[k])
	}
	return strings.Join(parts, ", ")
}
