package report

import "github.com/llm-replay/replay/analysis"

// tokenizeLine is the table's line of the tokenize cross-check, "" when it was not run.
func tokenizeLine(t *analysis.TokenizeCheck) string {
	if t == nil {
		return ""
	}
	return "tokenize    " + t.Line() + "\n"
}
