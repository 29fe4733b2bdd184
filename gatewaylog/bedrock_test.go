package gatewaylog

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/trace"
)

// TestBedrock reads the ModelInvocationLog fixture: ISO starts at millisecond and second
// precision; the stream flag from the operation; cache reads logged as cached tokens and
// added, with cache writes, to the prompt Bedrock's inputTokenCount leaves them out of; the
// cap from Converse's inferenceConfig, Llama's max_gen_len and Anthropic's max_tokens; another
// schema type skipped; a record without its output count rejected.
func TestBedrock(t *testing.T) {
	checkRecords(t, "bedrock.jsonl", "bedrock", []want{
		{0, 1824, 120, 1024, "anthropic.claude-3-5-sonnet-20240620-v1:0", trace.APIChat, "true", 512},
		{153 * time.Millisecond, 300, 64, -1, "meta.llama3-1-8b-instruct-v1:0", trace.APIChat, "false", 128},
		{1403 * time.Millisecond, 250, 30, 0, "anthropic.claude-3-haiku-20240307-v1:0", trace.APIChat, "true", 300},
	}, 1, 1)
}
