package gatewaylog

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/trace"
)

// TestSGLangLog reads the JSON request-log fixture: starts are the finished line's time less
// e2e_latency, exact to the microsecond, in arrival order (b2e4 finished first but started
// later); received lines left out uncounted; the cap from max_new_tokens; an embedding request
// (no completion_tokens); a finished line without its latency rejected.
func TestSGLangLog(t *testing.T) {
	checkRecords(t, "sglang-log.jsonl", "sglang-log", []want{
		{0, 320, 220, 80, "", "", "true", 256},
		{902629 * time.Microsecond, 64, 8, 0, "", "", "false", 0},
		{2152629 * time.Microsecond, 12, 0, -1, "", trace.APIEmbeddings, "", 0},
	}, 0, 1)
}
