package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/require"
	"github.com/llm-replay/replay/runner"
)

// ErrRequirements is returned (wrapped) by Paired when a requirement failed on any endpoint,
// after every file is written; `replay run` exits 4 with it.
var ErrRequirements = errors.New("--require limits failed")

// endpointRequirements are the --require terms judged on one endpoint of a paired run, as
// compare.json's requirements hold them.
type endpointRequirements struct {
	Label string `json:"label"`
	// Against is A's label for a B, whose delta terms are B against A; "" for A, on which only
	// the terms that are not deltas are judged.
	Against  string            `json:"against,omitempty"`
	Outcomes []require.Outcome `json:"outcomes"`
}

// judgeRequirements judges reqs on every endpoint of a paired run: A on its own summary (its
// delta terms have nothing to compare with and are left to the Bs), each B on its own and, for
// delta terms, against A. failed counts the failing outcomes.
func judgeRequirements(reqs []require.Requirement, eps []runner.EndpointResult) (out []endpointRequirements, failed int) {
	if len(reqs) == 0 {
		return nil, 0
	}
	var own []require.Requirement
	for _, r := range reqs {
		if !r.IsDelta() {
			own = append(own, r)
		}
	}
	for i, e := range eps {
		er := endpointRequirements{Label: e.Label}
		terms := reqs
		var base *analysis.Summary
		if i == 0 {
			terms = own
		} else {
			er.Against, base = eps[0].Label, eps[0].Summary
		}
		if len(terms) == 0 {
			continue
		}
		er.Outcomes, _ = require.CheckAll(terms, e.Summary, base)
		for _, o := range er.Outcomes {
			if !o.Pass {
				failed++
			}
		}
		out = append(out, er)
	}
	return out, failed
}

// writeRequirements prints each endpoint's outcomes, one line a term, after the verdicts.
func writeRequirements(w io.Writer, ers []endpointRequirements) error {
	if len(ers) == 0 {
		return nil
	}
	fmt.Fprintln(w, "requirements (--require):")
	for _, er := range ers {
		head := er.Label
		if er.Against != "" {
			head += " (delta terms against " + er.Against + ")"
		}
		fmt.Fprintf(w, "%s:\n", head)
		var b bytes.Buffer
		if err := require.WriteOutcomes(&b, er.Outcomes); err != nil {
			return err
		}
		for _, line := range strings.SplitAfter(b.String(), "\n") {
			if line != "" {
				fmt.Fprint(w, "  "+line)
			}
		}
	}
	return nil
}

// requirementsError is the paired run's error for failed limits, nil when none failed.
func requirementsError(ers []endpointRequirements, failed int) error {
	if failed == 0 {
		return nil
	}
	total := 0
	for _, er := range ers {
		total += len(er.Outcomes)
	}
	return fmt.Errorf("%w: %d of %d", ErrRequirements, failed, total)
}
