package checks

import (
	"html/template"
	"io"

	"github.com/llm-replay/replay/checkresult"
)

// A check's outcome and its names are package checkresult's, so that what reads Results
// (analysis, the reports) does not link these probes; the probes fill them in under the names
// below.
type (
	Result   = checkresult.Result
	Endpoint = checkresult.Endpoint
)

// The checks' names (checkresult's).
const (
	Streaming        = checkresult.Streaming
	ToolCalls        = checkresult.ToolCalls
	StructuredOutput = checkresult.StructuredOutput
	Stop             = checkresult.Stop
	MaxTokens        = checkresult.MaxTokens
	Sampling         = checkresult.Sampling
	OverloadCheck    = checkresult.OverloadCheck
)

// Verdicts of a Result (checkresult's).
const (
	VerdictPass    = checkresult.VerdictPass
	VerdictFail    = checkresult.VerdictFail
	VerdictSkipped = checkresult.VerdictSkipped
)

// WriteText is checkresult.WriteText, the Results side by side for a terminal.
func WriteText(w io.Writer, eps []Endpoint) error { return checkresult.WriteText(w, eps) }

// HTML is checkresult.HTML, the Results side by side for report.html.
func HTML(eps []Endpoint) template.HTML { return checkresult.HTML(eps) }
