package runner

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/llm-replay/replay/analysis"
)

// Endpoint is one of the endpoints a paired run sends every request to (Config.Endpoints).
type Endpoint struct {
	// Label names the endpoint's folder under Config.Out and its side in compare.json.
	Label string
	// URL is the endpoint's base URL, as Config.Endpoint; Model and APIKey are what its
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
		case !labelPattern.MatchString(e.Label) || e.Label == CompareFile || e.Label == CompareHTMLFile:
			return fmt.Errorf("--endpoint label %q: want letters, digits, '.', '_' or '-' (it names the endpoint's folder)", e.Label)
		case seen[e.Label]:
			return fmt.Errorf("--endpoint label %q given twice: give each endpoint its own LABEL=", e.Label)
		case e.URL == "":
			return fmt.Errorf("--endpoint %s: the built-in simulator cannot be one of several endpoints; start `replay sim --listen ADDR` for each and give its URL", e.Label)
		case e.Model == "":
			return fmt.Errorf("--model is required for endpoint %s: give --model NAME (every endpoint) or --model %s=NAME", e.Label, e.Label)
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

// finishMulti writes each endpoint's summary and report and prints its table (finish, as a
// single run does), then the paired comparison, and returns A's summary with the worst error,
// or, when every endpoint's run was ok, ErrRequirements when a --require limit failed.
func finishMulti(cfg Config, p *plan, legs []*leg) (*analysis.Summary, error) {
	sums := make([]*analysis.Summary, len(legs))
	errs := make([]error, len(legs))
	for i, l := range legs {
		fmt.Fprintf(cfg.Stdout, "== %s: %s (model %s)\n", l.ep.Label, l.ep.URL, l.tg.model)
		sum, err := finish(l.cfg, p, l.tg, l.o)
		if sum == nil {
			return nil, l.named(err)
		}
		sums[i], errs[i] = sum, l.named(err)
		fmt.Fprintln(cfg.Stdout)
	}
	ers, failed := judgeRequirements(cfg.Require, legs, sums)
	if err := comparePaired(cfg, legs, sums, ers); err != nil {
		return sums[0], err
	}
	// A run that failed keeps its own error (its exit code); the requirements are printed.
	if err := worstError(errs); err != nil {
		return sums[0], err
	}
	return sums[0], requirementsError(ers, failed)
}

// worstError is the error a paired run exits with: interrupted over client-bound over too many
// failures, as the verdicts rank (analysis.Summary.judge); nil when every endpoint was ok.
func worstError(errs []error) error {
	for _, target := range []error{ErrInterrupted, ErrClientBound, ErrTooManyFailures} {
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
