package gatewaylog

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/trace"
)

// TestVertex reads the request-response logging fixture: the arrival from the response's
// createTime when logged, else logging_time (in BigQuery's "... UTC" text, RFC 3339 and epoch
// seconds in E notation); generateContent and streamGenerateContent (the stream flag from
// api_method) with usageMetadata's prompt, candidates plus thoughts, and cached counts, the
// cap from generationConfig (camelCase) and generation_config (snake_case); the request and
// response held as JSON strings, the stream's response as an array of chunks; an Anthropic
// rawPredict row read as Messages (cache reads and writes in the prompt); an older endpoint
// row of a model that is no LLM skipped; a bad count rejected, named by line and field.
func TestVertex(t *testing.T) {
	checkRecords(t, "vertex.jsonl", "vertex", []want{
		{0, 5200, 180, 4096, "gemini-2.0-flash-001", trace.APIChat, "false", 256},
		{152629 * time.Microsecond, 2150, 75, 2000, "claude-sonnet-4@20250514", trace.APIMessages, "false", 512},
		{2652629 * time.Microsecond, 900, 420, 0, "gemini-2.5-flash", trace.APIChat, "true", 1024},
	}, 1, 1)
	checkRejected(t, "vertex.jsonl", "vertex", 5, "full_response.usageMetadata.promptTokenCount")
}
