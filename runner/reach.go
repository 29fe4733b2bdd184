package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/engine"
)

// unreachable turns a preflight request that got no answer into the setup error a newcomer's
// usual mistakes deserve, each naming the URL tried, what happened and the fix (a scheme the
// server does not speak is schemeMismatch's); nil when there was an answer or none in time (an
// overloaded server is the run's finding, not a setup error).
func unreachable(ctx context.Context, base, tried string, err error) error {
	u, _ := url.Parse(base)
	switch {
	case err == nil:
		return nil
	case client.TLSFailure(err):
		return setupf("GET %s: the endpoint's certificate does not verify (%v): pass --ca-file FILE with the CA that signed it (or --insecure to skip the check)", tried, tlsCause(err))
	case errors.Is(err, syscall.ECONNREFUSED):
		return setupf("GET %s: connection refused: nothing is listening at %s; start the server or fix the host and port in --endpoint", tried, u.Host)
	case isNotFoundHost(err):
		return setupf("GET %s: unknown host %q (%v): fix the host in --endpoint", tried, u.Hostname(), dnsCause(err))
	case isDNS(err):
		return setupf("GET %s: the host %q could not be resolved (%v): fix the host in --endpoint, or the resolver", tried, u.Hostname(), dnsCause(err))
	}
	return nil
}

// checkRoute POSTs an empty request to the route the run's API is sent to and stops the run
// when the route is not there (404, 405): a path such as /v2 for /v1 would fail every
// request. An answer that refuses the empty body says the route exists.
func checkRoute(ctx context.Context, cfg Config, hc *http.Client, base string, e Endpoint, s engine.Served) error {
	path, ok := client.APIPath(cfg.Client.API)
	if !ok {
		return nil // Validate names the API
	}
	model := e.Model
	if model == "" && len(s.Models) > 0 {
		model = s.Models[0].ID
	}
	r := engine.ProbeRoute(ctx, hc, base+path, model)
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.Err != nil {
		return unreachable(ctx, base, r.URL, r.Err)
	}
	if !r.Missing() {
		return nil
	}
	fix := "check the API root in --endpoint (it usually ends in /v1, e.g. " + withPath(base, "/v1") + ")"
	if s.Listed {
		fix = fmt.Sprintf("the endpoint lists models at %s but serves no %s API there: pass --api with one it serves", s.URL, cfg.Client.API)
	}
	return setupf("POST %s answered %s (GET %s: %s): %s", r.URL, statusText(r.Status), s.URL, answered(s), fix)
}

// answered is what GET /v1/models got, in a few words.
func answered(s engine.Served) string {
	if s.Err != nil {
		return s.Err.Error()
	}
	return statusText(s.Status)
}

// statusText is "404 Not Found".
func statusText(code int) string {
	return fmt.Sprintf("%d %s", code, http.StatusText(code))
}

// isNotFoundHost reports a name the resolver does not know.
func isNotFoundHost(err error) bool {
	var d *net.DNSError
	return errors.As(err, &d) && d.IsNotFound
}

// isDNS reports any failure to resolve a name (a resolver that times out included): every
// request would fail the same way.
func isDNS(err error) bool {
	var d *net.DNSError
	return errors.As(err, &d)
}

// dnsCause is the resolver's own words.
func dnsCause(err error) string {
	var d *net.DNSError
	if errors.As(err, &d) {
		return d.Err
	}
	return err.Error()
}

// withPath is base with its path replaced.
func withPath(base, path string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = path
	return u.String()
}

// tlsCause is the TLS error without the request's words around it.
func tlsCause(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": tls: "); i >= 0 {
		return msg[i+2:]
	}
	if i := strings.Index(msg, "x509: "); i >= 0 {
		return msg[i:]
	}
	return msg
}
