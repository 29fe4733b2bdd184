package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ResetResult says whether a prefix-cache reset happened, for the summary ("reset", "could
// not be reset: Why"; a cache left warm on purpose is the caller's to record).
type ResetResult struct {
	Engine Engine
	// Supported is true when the engine has a reset endpoint at all.
	Supported bool
	// Reset is true when the server accepted the reset (HTTP 2xx).
	Reset bool
	// Endpoint is the request sent ("POST http://127.0.0.1:8000/reset_prefix_cache"), "" when
	// none was.
	Endpoint string
	// Status is the HTTP status, 0 when no answer came or nothing was sent.
	Status int
	// Why explains a reset that did not happen, or qualifies one that did.
	Why string
}

// resetTimeout bounds a reset when ctx has no deadline.
const resetTimeout = 30 * time.Second

// resets are the engines' reset endpoints and what their answers mean:
//   - vLLM: POST /reset_prefix_cache (vllm/entrypoints/serve/cache/api_router.py; in
//     vllm/entrypoints/openai/api_server.py before), registered only when the server runs
//     with VLLM_SERVER_DEV_MODE=1, so a 404 means dev mode is off. It answers 200 without
//     checking that the reset succeeded (its docstring says so): call it while idle.
//   - SGLang: /flush_cache, GET or POST (python/sglang/srt/entrypoints/http_server.py);
//     400 when requests are running or waiting, since it flushes only an idle server.
var resets = map[Engine]struct {
	path       string
	notFound   string
	badRequest string
	caveat     string
}{
	VLLM: {path: "/reset_prefix_cache",
		notFound: "vLLM serves /reset_prefix_cache only when started with VLLM_SERVER_DEV_MODE=1",
		caveat:   "vLLM does not check that the reset succeeded; it resets only blocks no running request holds"},
	SGLang: {path: "/flush_cache",
		badRequest: "SGLang flushes only when no request is running or waiting"},
}

// ResetPrefixCache empties e's prefix cache before a run (or a sweep step) so it measures a
// cold cache, where e has an endpoint for that: vLLM and SGLang, and llama.cpp's slot erase
// (resetLlamaCpp). baseURL is --endpoint; c
// carries the API key. Every outcome is in the result (an engine without a reset endpoint
// is Supported false with Why); the error is only for a bad baseURL.
func ResetPrefixCache(ctx context.Context, c *http.Client, baseURL string, e Engine) (ResetResult, error) {
	root, err := ServerRoot(baseURL)
	if err != nil {
		return ResetResult{}, err
	}
	spec, ok := resets[e]
	if !ok && e != LlamaCpp {
		return ResetResult{Engine: e, Why: noReset(e)}, nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, resetTimeout)
		defer cancel()
	}
	if e == LlamaCpp {
		return resetLlamaCpp(ctx, clientOr(c), root), nil
	}
	url := root + spec.path
	res := ResetResult{Engine: e, Supported: true, Endpoint: "POST " + url}
	r := send(ctx, clientOr(c), http.MethodPost, url, nil, smallBody)
	res.Status = r.status
	switch {
	case r.status == 0:
		res.Why = "no answer: " + r.describe()
	case r.ok():
		res.Reset, res.Why = true, spec.caveat
	case r.status == http.StatusNotFound && spec.notFound != "":
		res.Why = fmt.Sprintf("%s (HTTP 404)", spec.notFound)
	case r.status == http.StatusBadRequest && spec.badRequest != "":
		res.Why = fmt.Sprintf("%s (HTTP 400: %s)", spec.badRequest, snippet(r.body))
	default:
		res.Why = fmt.Sprintf("HTTP %d: %s", r.status, snippet(r.body))
	}
	return res, nil
}

// noReset is why an engine's prefix cache cannot be reset from outside.
func noReset(e Engine) string {
	switch e {
	case Auto:
		return "the engine is not known yet (detect it first)"
	case Generic:
		return "no reset endpoint is known for an unknown engine"
	case OpenAI:
		return "a managed API's cache cannot be reset"
	}
	return e.Label() + " has no endpoint that resets its prefix cache"
}

// Cache-reset states of the summary, beside "not reset: why".
const (
	CacheReset    = "reset"
	CacheLeftWarm = "left warm"
)

// ResetForRun empties the engine's prefix cache before a measured run, so it starts cold,
// and returns the summary's state: CacheReset, or "not reset: why" (replay's simulator has
// no reset endpoint). What happened is printed to w, a reset that did not happen as a
// warning.
func (c Choice) ResetForRun(ctx context.Context, hc *http.Client, baseURL string, w io.Writer) string {
	if c.Simulator != "" {
		state := "not reset: " + c.Simulator + " has no endpoint that resets its prefix cache"
		fmt.Fprintf(w, "replay: warning: prefix cache %s\n", state)
		return state
	}
	res, err := ResetPrefixCache(ctx, hc, baseURL, c.Engine)
	var state string
	switch {
	case err != nil:
		state = "not reset: " + err.Error()
	case res.Reset:
		msg := "replay: prefix cache reset (" + res.Endpoint + ")"
		if res.Why != "" {
			msg += "; " + res.Why
		}
		fmt.Fprintln(w, msg)
		return CacheReset
	default:
		state = "not reset: " + res.Why
	}
	fmt.Fprintf(w, "replay: warning: prefix cache %s; the run starts with a warm cache\n", state)
	return state
}
