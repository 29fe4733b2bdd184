package checks

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config is the endpoint the probes go to.
type Config struct {
	// BaseURL is the API root, e.g. http://127.0.0.1:8000/v1 ("/chat/completions" or
	// "/completions" is appended), as the client's.
	BaseURL string
	// API is "chat" ("" too) or "completions". The completions API has neither tools nor
	// response_format, so those checks are skipped on it.
	API string
	// Model is sent as "model".
	Model string
	// APIKey, when set, is sent as a Bearer token; it never appears in a Result, even where a
	// server quotes it back.
	APIKey string
	// HTTPClient sends the probes; nil means a client of the package's own, without a timeout
	// of its own (Timeout bounds each probe).
	HTTPClient *http.Client
	// Timeout bounds each probe, all its requests together; 0 means DefaultTimeout.
	Timeout time.Duration
}

// The APIs Config.API names.
const (
	APIChat        = "chat"
	APICompletions = "completions"
)

// DefaultTimeout bounds one probe: its requests are short (at most a few hundred tokens), so a
// minute is ample on a loaded server and bounds a hung one.
const DefaultTimeout = time.Minute

// chat reports whether the probes use the chat API.
func (c Config) chat() bool { return c.API == "" || c.API == APIChat }

// endpoint is the URL the probes are posted to.
func (c Config) endpoint() string {
	path := "/chat/completions"
	if !c.chat() {
		path = "/completions"
	}
	return strings.TrimSuffix(c.BaseURL, "/") + path
}

// timeout is the bound on one probe.
func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// check reports the first setting that makes probing impossible, naming it.
func (c Config) check() error {
	if c.API != "" && c.API != APIChat && c.API != APICompletions {
		return fmt.Errorf("checks config: API must be %q or %q, got %q", APIChat, APICompletions, c.API)
	}
	if c.Model == "" {
		return errors.New("checks config: Model is empty")
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("checks config: BaseURL %q is not an http(s) URL", c.BaseURL)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("checks config: Timeout must be >= 0, got %v", c.Timeout)
	}
	return nil
}

// TimeoutWithin bounds each probe by a run's own patience: DefaultTimeout, or less under a
// whole request's timeout or a stall timeout (five silences of it: a probe is a few short
// requests, and a server that stalls the run's requests stalls its probes too); 0 is none.
func TimeoutWithin(request, stall time.Duration) time.Duration {
	t := DefaultTimeout
	if request > 0 {
		t = min(t, request)
	}
	if stall > 0 {
		t = min(t, 5*stall)
	}
	return t
}
