package routing

import (
	"strings"

	"github.com/llm-replay/replay/trace"
)

// loggedHeaders are the logged headers --headers logged replays: those by which routers,
// schedulers and gateways place or order a request, never credentials (trace.SecretHeader is
// checked again at the send). Each is named for where it comes from:
var loggedHeaders = map[string]bool{
	// AIPerf's session affinity header, also sent by opencode's client for its sessions.
	"x-session-affinity": true,
	// Session ids clients and gateways send (OpenAI's Codex client: session_id/x-session-id;
	// LiteLLM: x-litellm-session-id; Helicone: helicone-session-id).
	"x-session-id": true, "session-id": true, "session_id": true, "x-litellm-session-id": true, "helicone-session-id": true,
	// Gateway API Inference Extension (the endpoint picker protocol, proposal 004) and llm-d:
	// the endpoint picked, the model name, the inference objective (priority band) and the
	// fairness id; llm-d's routing sidecar's prefiller address.
	"x-gateway-destination-endpoint": true, "x-gateway-destination-endpoint-subset": true,
	"x-gateway-model-name": true, "x-gateway-inference-objective": true, "x-gateway-inference-fairness-id": true,
	"x-llm-d-inference-objective": true, "x-prefiller-host-port": true, "x-prefiller-url": true,
	// NVIDIA Dynamo's endpoint picker names the worker it chose.
	"x-worker-instance-id": true,
	// HTTP's own priority (RFC 9218), and the plain priority header schedulers read.
	"priority": true, "x-priority": true,
}

// loggedPrefixes are families replayed whole: llm-d's x-llm-d-* headers and prefix-cache
// routing hints (x-prefix-cache-*).
var loggedPrefixes = []string{"x-llm-d-", "x-prefix-cache-"}

// ownHeaders are the headers the client writes itself (framing, content, its request id and
// trace context): a logged one would contradict the request actually sent, so none is replayed
// even when --header-allow names it.
var ownHeaders = map[string]bool{
	"host": true, "content-length": true, "transfer-encoding": true, "connection": true, "te": true, "trailer": true,
	"upgrade": true, "expect": true, "keep-alive": true, "content-type": true, "content-encoding": true, "accept": true,
	"accept-encoding": true, "x-request-id": true, "traceparent": true, "tracestate": true, "anthropic-version": true,
}

// Allowlist says which logged headers a run replays: the defaults above and the extra names.
type Allowlist struct{ extra map[string]bool }

// NewAllowlist is the default allowlist with extra names added (case-insensitive).
func NewAllowlist(extra []string) Allowlist {
	a := Allowlist{extra: map[string]bool{}}
	for _, n := range extra {
		a.extra[strings.ToLower(n)] = true
	}
	return a
}

// Allowed reports whether a header of this name is replayed; a credential never is.
func (a Allowlist) Allowed(name string) bool {
	n := strings.ToLower(name)
	if trace.SecretHeader(n) || ownHeaders[n] {
		return false
	}
	if loggedHeaders[n] || a.extra[n] {
		return true
	}
	for _, p := range loggedPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// Logged are rec's logged headers the allowlist replays, in the record's order.
func (a Allowlist) Logged(rec *trace.Record) []trace.Header {
	var out []trace.Header
	for _, h := range rec.Headers {
		if a.Allowed(h.Name) {
			out = append(out, h)
		}
	}
	return out
}
