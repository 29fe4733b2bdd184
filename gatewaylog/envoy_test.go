package gatewaylog

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/trace"
)

// TestEnvoyAIGateway reads the access-log fixture: ISO starts to the millisecond; the GenAI
// conventions' dotted keys (each one key) and the genai_* keys with their values as strings;
// a cache-read count; the query string left off the path; an MCP call and a health check
// skipped; a chat request without its output count rejected.
func TestEnvoyAIGateway(t *testing.T) {
	checkRecords(t, "envoy-ai-gateway.jsonl", "envoy-ai-gateway", []want{
		{0, 640, 96, 512, "qwen3-8b", trace.APIChat, "", 0},
		{403 * time.Millisecond, 128, 16, -1, "llama-3.1-8b", trace.APICompletions, "", 0},
	}, 2, 1)
}
