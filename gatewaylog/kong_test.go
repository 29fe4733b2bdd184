package gatewaylog

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/trace"
)

// TestKongAI reads the log-serializer fixture: epoch-millisecond starts; the current "proxy"
// and the earlier "ai-proxy" plugin keys with their usage names; the stream flag from
// request_mode; cached tokens and the cap from the payloads held as JSON strings; the
// gateway's other traffic skipped; a bad start time rejected.
func TestKongAI(t *testing.T) {
	checkRecords(t, "kong-ai.jsonl", "kong-ai", []want{
		{0, 700, 64, 384, "gpt-4o-mini", trace.APIChat, "true", 200},
		{653 * time.Millisecond, 150, 40, -1, "mistral-small", trace.APIChat, "false", 0},
	}, 1, 1)
}
