package runner

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/llm-replay/replay/runfolder"
)

// Endpoint is one of the endpoints a paired run sends every request to (Config.Endpoints).
type Endpoint struct {
	// Label names the endpoint's folder under Config.Out (and its side in the comparison,
	// package compare).
	Label string
	// URL is the endpoint's base URL, as Config.Client.BaseURL; Model and APIKey are what its
	// requests carry.
	URL    string
	Model  string
	APIKey string
}

// labelPattern is what a label may be: a folder name on every platform, never "." or "..".
var labelPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkEndpoints refuses what a paired run cannot do: a label that is no folder name or is
// given twice, the built-in simulator as one of the endpoints, an endpoint without a model,
// and one engine page for every endpoint. Everything else is a single run's, per endpoint
// (leg.go): each gets its own scrapes, GPU exporters' samples and partial summaries in its
// folder, and its series on the one --metrics-listen page.
func checkEndpoints(cfg Config) error {
	seen := map[string]bool{}
	for _, e := range cfg.Endpoints {
		switch {
		case !labelPattern.MatchString(e.Label) || e.Label == runfolder.Compare || e.Label == runfolder.CompareReport:
			return fmt.Errorf("--endpoint label %q: want letters, digits, '.', '_' or '-' (it names the endpoint's folder)", e.Label)
		case seen[e.Label]:
			return fmt.Errorf("--endpoint label %q given twice: give each endpoint its own LABEL=", e.Label)
		case e.URL == "":
			return fmt.Errorf("--endpoint %s: the built-in simulator cannot be one of several endpoints; start `replay sim --listen ADDR` for each and give its URL", e.Label)
		}
		seen[e.Label] = true
	}
	if cfg.MetricsURL != "" && cfg.MetricsURL != "none" {
		return errors.New("--metrics-url names one page: with several --endpoint each endpoint's own scheme://host/metrics is scraped (or give none)")
	}
	return nil
}

// shareLimit is each scheduled request's share of the client's in-flight limit: a request of
// a paired run holds one connection to every endpoint, so the scheduler may have limit / n of
// them in flight, and its lateness and backlog account for the whole of this machine's load.
func shareLimit(limit, n int) int {
	if limit <= 0 {
		return 0
	}
	return max(1, limit/n)
}

// worstError is the error a paired run exits with: interrupted over client-bound over too many
// failures, as the verdicts rank (analysis.Summary.judge); nil when every endpoint was ok.
func worstError(errs []error) error {
	for _, target := range []error{ErrInterrupted, ErrClientBound, ErrLengths, ErrSkipped, ErrTooManyFailures} {
		for _, err := range errs {
			if errors.Is(err, target) {
				return err
			}
		}
	}
	return errors.Join(errs...)
}

// labelWriter puts an endpoint's label into the lines written through it: "replay: LABEL: ...".
type labelWriter struct {
	w     io.Writer
	label string
}

func prefixed(w io.Writer, label string) io.Writer { return labelWriter{w, label} }

func (lw labelWriter) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(lw.w, "replay: %s: %s", lw.label, strings.TrimPrefix(string(b), "replay: ")); err != nil {
		return 0, err
	}
	return len(b), nil
}

// labelList is the legs' labels in order.
func labelList(legs []*leg) []string {
	ls := make([]string, len(legs))
	for i, l := range legs {
		ls[i] = l.ep.Label
	}
	return ls
}
