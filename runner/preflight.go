package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/engine"
)

// ErrSetup is wrapped by the error of a setup mistake found before the run's first send (a
// certificate that does not verify, a key the endpoint refuses, a model it does not serve):
// nothing was sent, and the message names the fix.
var ErrSetup = errors.New("setup")

// setupError is a setup mistake's message, which is ErrSetup without saying so.
type setupError struct{ msg string }

func (e setupError) Error() string        { return e.msg }
func (e setupError) Is(target error) bool { return target == ErrSetup }

func setupf(format string, a ...any) error { return setupError{fmt.Sprintf(format, a...)} }

// preflight asks each real endpoint GET /v1/models and POSTs an empty request to the route
// the run sends to, before anything is built or sent, and stops the run on what would only
// make every request fail (reach.go): nothing listening, a host that does not resolve, TLS
// on one side only or a certificate that does not verify, a 401 or 403, a route that answers
// 404 or 405, a model the endpoint does not list (when it lists models). What it cannot tell
// (no answer in time, no model list, an overloaded server) is left to the run, whose rows
// keep their classes. It returns each endpoint's answer (the tokenizer's name may come from it); nil
// against the simulator, which needs none.
func preflight(ctx context.Context, cfg Config, eps []Endpoint) ([]engine.Served, error) {
	if eps[0].URL == "" {
		return nil, nil
	}
	out := make([]engine.Served, len(eps))
	for i, e := range eps {
		s, err := preflightOne(ctx, cfg, e)
		if err != nil {
			if e.Label != "" {
				err = fmt.Errorf("endpoint %s: %w", e.Label, err)
			}
			return nil, err
		}
		out[i] = s
		if eps[i].Model == "" && s.Listed && len(s.Models) == 1 {
			eps[i].Model = s.Models[0].ID
			fmt.Fprintf(cfg.Stderr, "replay: --model %s: the one model %s serves\n", eps[i].Model, s.URL)
		}
	}
	return out, nil
}

// preflightOne is one endpoint's GET /v1/models and its API route, judged.
func preflightOne(ctx context.Context, cfg Config, e Endpoint) (engine.Served, error) {
	base, err := baseURL(e.URL)
	if err != nil {
		return engine.Served{}, err
	}
	hc, err := preflightClient(cfg, e, base)
	if err != nil {
		return engine.Served{}, err
	}
	s := engine.ListModels(ctx, hc, base)
	if err := ctx.Err(); err != nil {
		return s, err
	}
	if err := schemeMismatch(ctx, e.URL, s); err != nil {
		return s, err
	}
	if err := unreachable(ctx, base, s.URL, s.Err); err != nil {
		return s, err
	}
	switch {
	case s.Status == http.StatusUnauthorized || s.Status == http.StatusForbidden:
		return s, setupf("the endpoint refused %s (HTTP %d on GET %s: %s): pass its API key with --api-key-env NAME (the variable holding it) or --api-key-file FILE",
			keyNote(e.APIKey), s.Status, s.URL, withoutKey(s.Body, e.APIKey))
	case e.Model == "" && s.Listed && len(s.Models) > 1:
		return s, setupf("--model is required with --endpoint: %s serves %s", base, modelList(s))
	case e.Model != "" && s.Listed && !s.Lists(e.Model):
		return s, setupf("model %q is not served at %s: its /v1/models lists %s (pass one with --model)", e.Model, base, modelList(s))
	}
	if s.Listed {
		return s, nil // the API root lists models: its routes are the forcing probe's and the run's to judge
	}
	return s, checkRoute(ctx, cfg, hc, base, e, s)
}

// schemeMismatch is the setup error of an endpoint URL whose scheme its server does not
// speak: https:// at a plain-HTTP port (the handshake is answered in plain HTTP, which no CA
// file fixes), or http:// at a TLS port (answered with a 400, as Go's and nginx's servers
// answer plain HTTP, or a closed connection; told from other 400s by a TLS handshake that
// completes). Each names the URL to pass instead.
func schemeMismatch(ctx context.Context, endpoint string, s engine.Served) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil // baseURL has refused it already
	}
	switch {
	case u.Scheme == "https" && client.NotTLS(s.Err):
		return setupf("--endpoint %s: the server does not speak TLS (%v): use %s instead (http://, not https://)",
			endpoint, tlsCause(s.Err), withScheme(u, "http"))
	case u.Scheme == "http" && (s.Err != nil || s.Status == http.StatusBadRequest) && client.SpeaksTLS(ctx, u):
		answer := fmt.Sprintf("HTTP %d on GET %s", s.Status, s.URL)
		if s.Err != nil {
			answer = s.Err.Error()
		}
		return setupf("--endpoint %s: the server speaks TLS and refused plain HTTP (%s): use %s instead (https://, not http://)",
			endpoint, answer, withScheme(u, "https"))
	}
	return nil
}

// withScheme is u with another scheme.
func withScheme(u *url.URL, scheme string) string {
	v := *u
	v.Scheme = scheme
	return v.String()
}

// preflightClient is an HTTP client with the run's TLS settings and the endpoint's key.
func preflightClient(cfg Config, e Endpoint, base string) (*http.Client, error) {
	ccfg := cfg.Client
	ccfg.BaseURL, ccfg.Model, ccfg.APIKey = base, e.Model, e.APIKey
	if ccfg.Model == "" {
		ccfg.Model = "-" // only the transport is used
	}
	c, err := client.New(ccfg)
	if err != nil {
		return nil, err
	}
	return engine.WithBearer(&http.Client{Transport: transportOf(c)}, e.APIKey), nil
}

// withoutKey is text with the key taken out (a server may quote a credential back).
func withoutKey(text, key string) string {
	if key == "" {
		return text
	}
	return strings.ReplaceAll(text, key, "[api key]")
}

// keyNote says which key was refused, never the key.
func keyNote(key string) string {
	if key == "" {
		return "a request without an API key"
	}
	return "the API key given"
}

// modelList is the listed models, at most ten of them.
func modelList(s engine.Served) string {
	ids := s.IDs()
	for i := range ids {
		ids[i] = fmt.Sprintf("%q", ids[i])
	}
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return strings.Join(ids, ", ")
}

// firstServed is the first endpoint's /v1/models answer, nil when none was asked.
func firstServed(s []engine.Served) *engine.Served {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}
