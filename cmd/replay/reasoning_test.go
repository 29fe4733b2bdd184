package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
)

// reasoningLog writes a request log of thinking requests in the three shapes the logs carry
// the split in: chat with OpenAI's usage.completion_tokens_details.reasoning_tokens
// (https://platform.openai.com/docs/api-reference/chat/object), Anthropic's Messages with
// thinking content blocks before the text (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking,
// its response example), and Qwen3 in thinking mode (chat_template_kwargs.enable_thinking, the
// answer's reasoning_content as vLLM's reasoning parser returns it). Every answer ran to its
// cap, so its total is forced; one request of each shape thought nothing (the chat one says
// 0, the other two have no thinking to count: the log does not say, and nothing is thought).
func reasoningLog(t *testing.T) string {
	t.Helper()
	words := strings.Repeat("consider the integral of a rational function over the unit circle ", 3)
	var b strings.Builder
	at := 1.7e9
	add := func(line map[string]any) {
		raw, err := json.Marshal(line)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		b.WriteByte('\n')
		at += 0.08
	}
	for i := 0; i < 6; i++ {
		think := 40 + 30*i
		if i == 0 {
			think = 0
		}
		total := think + 12
		q := fmt.Sprintf("question %d: %s", i, words)
		add(map[string]any{"timestamp": at, "path": "/v1/chat/completions",
			"request": map[string]any{"model": "o4-mini", "messages": []any{map[string]string{"role": "user", "content": q}},
				"stream": true, "max_completion_tokens": total, "reasoning_effort": "medium"},
			"response": map[string]any{"choices": []any{map[string]any{"finish_reason": "length", "message": map[string]string{"role": "assistant", "content": "The answer is"}}},
				"usage": map[string]any{"prompt_tokens": 0, "completion_tokens": total, "completion_tokens_details": map[string]int{"reasoning_tokens": think}}}})
		thinking := strings.TrimSpace(strings.Repeat("Let me work through this step by step. ", i*3))
		content := []any{}
		if thinking != "" {
			content = append(content, map[string]string{"type": "thinking", "thinking": thinking, "signature": "EqQBCgIYAhIM"})
		}
		content = append(content, map[string]string{"type": "text", "text": "It is two pi."})
		add(map[string]any{"timestamp": at, "path": "/v1/messages",
			"request": map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 160, "stream": true,
				"thinking": map[string]any{"type": "enabled", "budget_tokens": 1024},
				"messages": []any{map[string]string{"role": "user", "content": q}}},
			"response": map[string]any{"type": "message", "role": "assistant", "content": content, "stop_reason": "max_tokens",
				"usage": map[string]int{"input_tokens": 0, "output_tokens": 160}}})
		msg := map[string]string{"role": "assistant", "content": "So the residue is one."}
		if thinking != "" {
			msg["reasoning_content"] = thinking
		}
		add(map[string]any{"timestamp": at, "path": "/v1/chat/completions",
			"request": map[string]any{"model": "Qwen/Qwen3-8B", "messages": []any{map[string]string{"role": "user", "content": q}},
				"stream": true, "max_tokens": 140, "chat_template_kwargs": map[string]bool{"enable_thinking": thinking != ""}},
			"response": map[string]any{"choices": []any{map[string]any{"finish_reason": "length", "message": msg}},
				"usage": map[string]int{"completion_tokens": 140}}})
	}
	p := filepath.Join(t.TempDir(), "reasoning.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReasoningReplay is issue 48's Done-when against the simulator: a log of thinking
// requests in three shapes replays with every request's logged split reproduced exactly
// (the simulator thinks the logged count, sent as thinking_token_budget, in each API's
// dialect), TTFAT in summary.json, the report and compare, and a ttfat SLO judged.
func TestReasoningReplay(t *testing.T) {
	log := reasoningLog(t)
	runs := [2]string{t.TempDir(), t.TempDir()}
	for i, out := range runs {
		code, stdout, stderr := runCLI(t, "run", "--trace", log, "--format", "openai-log", "--tokenizer", testenv.SampleTokenizer(),
			"--model", "sim", "--speed", "4", "--slo", "ttft=10s,ttfat=10s", "--max-lateness", "none", "--out", out)
		if code != 0 {
			t.Fatalf("run %d: exit %d\nstdout:\n%s\nstderr:\n%s", i, code, stdout, stderr)
		}
		if i == 0 && !strings.Contains(stdout, "reasoning   ") {
			t.Errorf("the terminal table has no reasoning line:\n%s", stdout)
		}
	}
	var sum analysis.Summary
	b, err := os.ReadFile(filepath.Join(runs[0], "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Reasoning
	if r == nil || r.Logged != 15 || r.SplitExactPct == nil || *r.SplitExactPct != 100 || r.Requests != 15 || r.NeverAnswered != 0 {
		t.Fatalf("reasoning %+v: want 15 of 18 requests thought, each exactly as logged", r)
	}
	if sum.TTFAT.Count != sum.Requests.OK || sum.TTFAT.P50 <= sum.TTFT.P50 || sum.Goodput == nil || sum.Goodput.MetPct["ttfat"] != 100 {
		t.Errorf("ttfat_ms %+v (ttft p50 %v), goodput %+v: want every request answered, after its first token", sum.TTFAT, sum.TTFT.P50, sum.Goodput)
	}
	t.Logf("%d requests, %d thought (%d logged, %.1f%% as logged), thinking %.1f%% of output; ttft p50 %.1f ms, ttfat p50 %.1f ms; itl thinking p50 %.1f ms, answer p50 %.1f ms",
		sum.Requests.OK, r.Requests, r.Logged, *r.SplitExactPct, *r.SharePct, sum.TTFT.P50, sum.TTFAT.P50, r.ITLThinking.P50, r.ITLAnswer.P50)
	rows, err := rowfile.ReadAll(filepath.Join(runs[0], "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.ReasoningTokens != max(row.TargetReasoningTokens, 0) || row.ReasoningTokens+row.AnswerTokens != row.TargetOutputTokens ||
			(row.ReasoningTokens > 0) != (row.FirstReasoningNS > 0) || row.FirstAnswerNS < row.FirstReasoningNS {
			t.Errorf("row %s (%s): thought %d of %d as %d logged, answered %d; first reasoning %d, answer %d", row.RequestID, row.API,
				row.ReasoningTokens, row.TargetOutputTokens, row.TargetReasoningTokens, row.AnswerTokens, row.FirstReasoningNS, row.FirstAnswerNS)
		}
	}
	page, err := os.ReadFile(filepath.Join(runs[0], "report.html"))
	if err != nil || !strings.Contains(string(page), "TTFAT p50 / p95") || !strings.Contains(string(page), `id="reasoning"`) {
		t.Errorf("report.html has no TTFAT headline or reasoning section (%v)", err)
	}
	code, stdout, stderr := runCLI(t, "compare", runs[0], runs[1])
	if code != 0 || !strings.Contains(stdout, "ttfat") {
		t.Errorf("compare: exit %d, no ttfat row\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
