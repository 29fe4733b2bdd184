package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Route is what an API route answered to an empty request: its status (0 when there was no
// answer; Err says why) and the start of its body. A route that exists refuses the empty
// body (400, 422) or the missing key (401, 403); one that does not answers 404 or 405.
type Route struct {
	URL    string
	Status int
	Err    error
	Body   string
}

// Missing reports whether the answer says there is no such route: 404 or 405, except a 404
// whose JSON body is about the model (vLLM answers an unknown model with 404 NotFoundError:
// the route is there, the model is not, which the model list judges).
func (r Route) Missing() bool {
	switch r.Status {
	case http.StatusMethodNotAllowed:
		return true
	case http.StatusNotFound:
		return !mentionsModel(r.Body)
	}
	return false
}

// mentionsModel reports whether an error body names a model.
func mentionsModel(body string) bool {
	return strings.Contains(strings.ToLower(body), "model")
}

// RouteProbeID is the X-Request-Id of the route probe, so a server's arrival log can tell
// it from the run's requests.
const RouteProbeID = "preflight-route"

// ProbeRoute POSTs an empty JSON object naming model to url, the route a run will send to,
// bounded by the probes' timeout. The body asks for nothing: an engine refuses it before any
// work (no messages, no prompt), so the probe costs the endpoint nothing but its answer.
func ProbeRoute(ctx context.Context, c *http.Client, url, model string) Route {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"model": model, "max_tokens": 1})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Route{URL: url, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", RouteProbeID)
	req.Header["X-Idempotency-Key"] = nil // see send
	resp, err := clientOr(c).Do(req)
	if err != nil {
		return Route{URL: url, Err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, smallBody))
	return Route{URL: url, Status: resp.StatusCode, Body: snippet(b)}
}
