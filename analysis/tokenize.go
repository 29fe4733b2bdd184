package analysis

import (
	"fmt"
	"strings"
)

// maxNamed is how many differences a TokenizeCheck names by request id.
const maxNamed = 5

// TokenizeDiff is one prompt whose counts differ, or that the server could not tokenize (Err).
type TokenizeDiff struct {
	ID     string `json:"id"`
	Replay int64  `json:"replay"`
	Server int64  `json:"server"`
	Err    string `json:"error,omitempty"`
}

// TokenizeCheck is what the tokenize cross-check found (package tokcheck, after the measured
// run): the server's own token count of each checked prompt against replay's.
type TokenizeCheck struct {
	Dialect string         `json:"dialect"`
	Sent    int            `json:"sent"`    // prompts the run sent
	Checked int            `json:"checked"` // prompts asked of the server (all, or the sample)
	Equal   int            `json:"equal"`
	Failed  int            `json:"failed"`          // tokenize calls that failed
	First   []TokenizeDiff `json:"first,omitempty"` // the first differences, by request id
}

// Note records a difference, naming the first few.
func (r *TokenizeCheck) Note(d TokenizeDiff) {
	if len(r.First) < maxNamed {
		r.First = append(r.First, d)
	}
}

// Line is the result in one line for the terminal: "tokenize cross-check: N of M equal" and
// the first differences by request id.
func (r *TokenizeCheck) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tokenize cross-check: %d of %d equal", r.Equal, r.Checked)
	if r.Checked < r.Sent {
		fmt.Fprintf(&b, " (an evenly spaced sample of %d sent)", r.Sent)
	}
	if r.Failed > 0 {
		fmt.Fprintf(&b, ", %d not tokenized", r.Failed)
	}
	for i, d := range r.First {
		sep := "; "
		if i == 0 {
			sep = "; first differences: "
		}
		if d.Err != "" {
			fmt.Fprintf(&b, "%s%s (%s)", sep, d.ID, d.Err)
			continue
		}
		fmt.Fprintf(&b, "%s%s replay %d server %d", sep, d.ID, d.Replay, d.Server)
	}
	return b.String()
}

// AllEqual is whether every checked prompt matched.
func (r *TokenizeCheck) AllEqual() bool { return r.Checked > 0 && r.Equal == r.Checked }
