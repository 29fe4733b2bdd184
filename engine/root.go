package engine

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ServerRoot is where an engine's own endpoints live (/version, /health, /metrics,
// /reset_prefix_cache): the API root (--endpoint, e.g. http://127.0.0.1:8000/v1) without its
// trailing /v1, so an engine behind a path prefix (http://gw/llm/v1) keeps the prefix.
func ServerRoot(baseURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("engine: base URL %q: want http(s)://host[:port][/path], such as http://127.0.0.1:8000/v1", baseURL)
	}
	path := strings.TrimRight(u.Path, "/")
	path = strings.TrimSuffix(path, "/v1")
	return (&url.URL{Scheme: u.Scheme, User: u.User, Host: u.Host, Path: path}).String(), nil
}

// apiRoot is the OpenAI API root under a server root.
func apiRoot(root string) string { return root + "/v1" }

// WithBearer returns a client that sends key as a Bearer token on every request that has no
// Authorization header yet, for probing endpoints that need the run's API key (a managed API's
// /v1/models). An empty key returns c itself.
func WithBearer(c *http.Client, key string) *http.Client {
	if key == "" {
		return c
	}
	if c == nil {
		c = &http.Client{}
	}
	out := *c
	out.Transport = bearer{next: c.Transport, auth: "Bearer " + key}
	return &out
}

type bearer struct {
	next http.RoundTripper
	auth string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	next := b.next
	if next == nil {
		next = http.DefaultTransport
	}
	if r.Header.Get("Authorization") != "" {
		return next.RoundTrip(r)
	}
	r2 := r.Clone(r.Context()) // a RoundTripper must not change the caller's request
	r2.Header.Set("Authorization", b.auth)
	return next.RoundTrip(r2)
}
