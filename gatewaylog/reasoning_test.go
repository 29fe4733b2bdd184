package gatewaylog

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
)

// TestReasoning: each source's reasoning count reaches the record's options, in record order
// (-1: not logged): LiteLLM's response usage and a spend-log row's usage_object
// (completion_tokens_details.reasoning_tokens), Langfuse's usage_details.output_reasoning_tokens,
// Vertex's thoughtsTokenCount (0 for a Gemini answer without thoughts, which protobuf JSON
// leaves out; none for an Anthropic rawPredict row), the OpenAI usage of the response body
// APIM (joined and alone), Kong and Portkey log. Helicone's and Bedrock's records have no
// such count.
func TestReasoning(t *testing.T) {
	for _, c := range []struct {
		file, format string
		want         []int
	}{
		{"litellm.jsonl", "litellm", []int{48, -1, -1, -1}},
		{"litellm-spendlogs.jsonl", "litellm", []int{32, -1, -1, -1}},
		{"langfuse.jsonl", "langfuse", []int{-1, 20, -1, -1}},
		{"vertex.jsonl", "vertex", []int{0, -1, 120}},
		{"apim.jsonl", "apim", []int{64, -1, -1, -1}},
		{"apim-gatewaylogs.jsonl", "apim", []int{-1, 40, -1, -1}},
		{"kong-ai.jsonl", "kong-ai", []int{16, -1}},
		{"portkey.jsonl", "portkey", []int{24, -1, -1, -1}},
		{"helicone.jsonl", "helicone", []int{-1, -1, -1, -1}},
		{"bedrock.jsonl", "bedrock", []int{-1, -1, -1}},
	} {
		for _, f := range []string{c.format, ingest.FormatAuto} {
			recs, _, err := ingest.ReadAll(filepath.Join("testdata", c.file), ingest.Options{Format: f, OnError: ingest.OnErrorSkip})
			if err != nil || len(recs) != len(c.want) {
				t.Fatalf("%s as %s: %d records, %v", c.file, f, len(recs), err)
			}
			for i, w := range c.want {
				got := -1
				if o := recs[i].Options; o != nil && o.ReasoningTokens != nil {
					got = *o.ReasoningTokens
				}
				if got != w || got > recs[i].OutputTokens {
					t.Errorf("%s as %s, record %d (line %d): %d reasoning of %d output tokens, want %d", c.file, f, i, recs[i].Line, got, recs[i].OutputTokens, w)
				}
			}
		}
	}
}

// TestReasoningErrors: a reasoning count that is no count, or more than the output it is part
// of, is an error naming its field.
func TestReasoningErrors(t *testing.T) {
	for _, c := range []struct {
		s        Schema
		rec, err string
	}{
		{litellmSchema, `{"call_type":"completion","startTime":1737710446.847,"prompt_tokens":5,"completion_tokens":3,"model_parameters":{},"response":{"usage":{"completion_tokens_details":{"reasoning_tokens":4}}}}`,
			"response.usage.completion_tokens_details.reasoning_tokens"},
		{litellmSchema, `{"call_type":"completion","startTime":1737710446.847,"prompt_tokens":5,"completion_tokens":3,"model_parameters":{},"response":{"usage":{"completion_tokens_details":{"reasoning_tokens":-1}}}}`,
			"response.usage.completion_tokens_details.reasoning_tokens"},
		{litellmSchema, `{"request_id":"r","call_type":"completion","startTime":"2025-01-24T09:20:46Z","spend":0,"prompt_tokens":5,"completion_tokens":3,"metadata":{"usage_object":{"completion_tokens_details":{"reasoning_tokens":"x"}}}}`,
			"metadata.usage_object.completion_tokens_details.reasoning_tokens"},
		{langfuseSchema, `{"type":"GENERATION","start_time":"2025-01-24T09:20:46Z","usage_details":{"input":5,"output":1,"output_reasoning_tokens":2.5}}`,
			"usage_details.output_reasoning_tokens"},
		{kongSchema, `{"started_at":1737710446847,"ai":{"proxy":{"usage":{"prompt_tokens":5,"completion_tokens":2},"payload":{"response":"{\"usage\":{\"completion_tokens_details\":{\"reasoning_tokens\":3}}}"}}}}`,
			"reasoning_tokens"},
		{portkeySchema, `{"created_at":"2025-01-24T09:20:46Z","req_units":5,"res_units":2,"response":{"usage":{"output_tokens_details":{"reasoning_tokens":9}}}}`,
			"response.usage.output_tokens_details.reasoning_tokens"},
	} {
		_, err := readOne(c.s, []byte(c.rec), 2025, nil)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want an error naming %s", c.rec, err, c.err)
		}
	}
}
