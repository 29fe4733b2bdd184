package requestlog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
)

// reasoningLog is testdata/reasoning.jsonl: a log of thinking models' answers, each in the shape
// of its API's reference or its engine's response type (testdata/README.md cites them).
var reasoningLog = filepath.Join("testdata", "reasoning.jsonl")

// TestReasoning: each line's reasoning count is the usage's when it says it (chat's
// completion_tokens_details, the Responses API's output_tokens_details), else the logged
// thinking counted with the tokenizer (vLLM's, SGLang's and llama.cpp's reasoning_content,
// vLLM's reasoning, a <think> block opening the content, a Responses reasoning item's
// reasoning_text, Anthropic's thinking blocks), never more than the output; unknown where the
// log holds no thought or hides one (a reasoning_content of null, an Anthropic answer without
// thinking or with a redacted_thinking block). Without usage the thinking counts toward the
// output too.
func TestReasoning(t *testing.T) {
	m := loadModel(t, "qwen3")
	data, err := os.ReadFile(reasoningLog)
	if err != nil {
		t.Fatal(err)
	}
	reqs, _, err := readWith(t, m, string(data), Options{})
	if err != nil || len(reqs) != 11 {
		t.Fatalf("%d records: %v", len(reqs), err)
	}
	count := m.tok.Count
	for _, c := range []struct {
		line, reasoning, output int // reasoning -1: unknown
	}{
		{1, 192, 250},
		{2, min(count("91 is odd. Seven times thirteen is ninety-one, so it has divisors other than one and itself."), 46), 46},
		{3, count("Check 2, 3, 5 and 7: none divides 97, and 11 squared is past it."),
			count("Yes, 97 is prime.") + count("Check 2, 3, 5 and 7: none divides 97, and 11 squared is past it.")},
		{4, count("Five plus one is six, a multiple of three, so three divides 51."), 40},
		{5, 0, 7},
		{6, -1, 3},
		{7, 320, 400},
		{8, count("No prime up to 9 divides 89."), count("Yes, 89 is prime.") + count("No prime up to 9 divides 89.")},
		{9, count("1001 is 7 times 143, and 143 is 11 times 13."), 120},
		{10, -1, 210},
		{11, -1, 4},
	} {
		r := reqs[c.line-1]
		got := -1
		if r.Options.ReasoningTokens != nil {
			got = *r.Options.ReasoningTokens
		}
		if got != c.reasoning || r.OutputTokens != c.output {
			t.Errorf("line %d: %d reasoning of %d output tokens, want %d of %d", c.line, got, r.OutputTokens, c.reasoning, c.output)
		}
	}
}

// TestReasoningFields: the options that ask a model to think are sent back as logged, in
// Options.Fields: chat's reasoning_effort (OpenAI), chat_template_kwargs.enable_thinking
// (Qwen3 through vLLM), the Responses API's reasoning and Anthropic's thinking.
func TestReasoningFields(t *testing.T) {
	data, err := os.ReadFile(reasoningLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		reqs, counts, err := readWith(t, loadModel(t, "qwen3"), string(data), Options{KeepText: keep})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			line       int
			key, value string
		}{
			{1, "reasoning_effort", `"high"`},
			{2, "chat_template_kwargs", `{"enable_thinking":true}`},
			{5, "chat_template_kwargs", `{"enable_thinking":false}`},
			{7, "reasoning", `{"effort":"medium","summary":"auto"}`},
			{9, "thinking", `{"type":"enabled","budget_tokens":2048}`},
		} {
			if got := fieldOf(reqs[c.line-1], c.key); got != c.value {
				t.Errorf("keep text %v, line %d: %s is %s in the fields %s, want %s", keep, c.line, c.key, got, reqs[c.line-1].Options.Fields, c.value)
			}
		}
		for k, n := range map[string]int64{"reasoning_effort": 1, "chat_template_kwargs": 3, "reasoning": 1, "thinking": 2} {
			if counts.CarriedFields[k] != n {
				t.Errorf("keep text %v: %s carried %d times, want %d", keep, k, counts.CarriedFields[k], n)
			}
		}
	}
}

// TestReasoningErrors: a reasoning count that is no count, or more than the output it is part
// of, is the line's error naming the field, as is a thought that is not text.
func TestReasoningErrors(t *testing.T) {
	chat := func(usage string) string {
		return `{"timestamp":1,"request":{"messages":[{"role":"user","content":"q"}]},"response":{"choices":[{"message":{"content":"a"}}],"usage":` + usage + `}}`
	}
	responses := `{"timestamp":1,"path":"/v1/responses","request":{"input":"q"},"response":{"output":[],"usage":{"input_tokens":1,"output_tokens":5,"output_tokens_details":{"reasoning_tokens":6}}}}`
	for line, field := range map[string]string{
		chat(`{"completion_tokens":10,"completion_tokens_details":{"reasoning_tokens":-1}}`):  `"response.usage.completion_tokens_details.reasoning_tokens"`,
		chat(`{"completion_tokens":10,"completion_tokens_details":{"reasoning_tokens":"4"}}`): `"response.usage.completion_tokens_details.reasoning_tokens"`,
		chat(`{"completion_tokens":10,"completion_tokens_details":{"reasoning_tokens":2.5}}`): `"response.usage.completion_tokens_details.reasoning_tokens"`,
		chat(`{"completion_tokens":10,"completion_tokens_details":{"reasoning_tokens":11}}`):  `"response.usage.completion_tokens_details.reasoning_tokens"`,
		chat(`{"prompt_tokens_details":{"cached_tokens":-2}}`):                                `"response.usage.prompt_tokens_details.cached_tokens"`,
		responses: `"response.usage.output_tokens_details.reasoning_tokens"`,
		`{"timestamp":1,"request":{"messages":[{"role":"user","content":"q"}]},"response":{"choices":[{"message":{"content":"a","reasoning_content":7}}]}}`:                             `"response.choices[0].message.reasoning_content"`,
		`{"timestamp":1,"path":"/v1/responses","request":{"input":"q"},"response":{"output":[{"type":"reasoning","content":[{"type":"reasoning_text"}]}],"usage":{"output_tokens":3}}}`: `"response.output[0].content[0].text"`,
	} {
		_, _, err := readWith(t, loadModel(t, "qwen3"), line+"\n", Options{})
		var re *ingest.RowError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "log.jsonl:1:") || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want an error naming %s", line, err, field)
		}
	}
}
