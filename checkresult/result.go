package checkresult

import (
	"strings"
	"unicode/utf8"
)

// The checks' names, as Results carry them, in the order the probes run (Names(LevelAll)),
// the overload check last.
const (
	Streaming        = "streaming"
	ToolCalls        = "tool_calls"
	StructuredOutput = "structured_output"
	Stop             = "stop"
	MaxTokens        = "max_tokens"
	Sampling         = "sampling"
	OverloadCheck    = "overload"
)

// Result is one check's outcome over its probe's requests (or, for Overload, a run's answers).
type Result struct {
	Name string `json:"name"`
	// Pass and Fail count the requests (answers) that showed the behaviour and those that did
	// not; a probe that could not be made at all is one Fail.
	Pass int `json:"pass"`
	Fail int `json:"fail"`
	// Seen says in one line what was observed, pass or fail.
	Seen string `json:"seen,omitempty"`
	// Examples are at most maxExamples failures, each its reason and the server's bytes
	// quoted (package checks cuts them).
	Examples []string `json:"examples,omitempty"`
	// Skipped says why the check could not apply (the completions API has no tools, a run
	// never overloaded the endpoint); Pass and Fail are then 0.
	Skipped string `json:"skipped,omitempty"`
}

// Verdicts of a Result.
const (
	VerdictPass    = "pass"
	VerdictFail    = "fail"
	VerdictSkipped = "skipped"
)

// Verdict is "skipped" when the check did not apply, "fail" when any request failed it or
// none was judged, else "pass".
func (r Result) Verdict() string {
	switch {
	case r.Skipped != "":
		return VerdictSkipped
	case r.Fail > 0 || r.Pass == 0:
		return VerdictFail
	}
	return VerdictPass
}

// Bounds on what a Result holds, so that a misbehaving server cannot flood a report.
const (
	maxExamples = 3
	maxSeen     = 400
)

// CountPass counts a request that showed the behaviour; seen, when not "", is added to Seen.
func (r *Result) CountPass(seen string) {
	r.Pass++
	r.See(seen)
}

// CountFail counts a request that did not, with its reason as an example (the first
// maxExamples are kept).
func (r *Result) CountFail(seen, reason string) {
	r.Fail++
	r.See(seen)
	if len(r.Examples) < maxExamples {
		r.Examples = append(r.Examples, reason)
	}
}

// See adds one observation to Seen, within maxSeen bytes.
func (r *Result) See(s string) {
	switch {
	case s == "":
		return
	case r.Seen != "":
		s = r.Seen + "; " + s
	}
	r.Seen = Cut(s, maxSeen)
}

// Cut shortens s to at most n bytes, on a character boundary, marking the cut.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.TrimRight(s[:i], " ;") + " …"
}
