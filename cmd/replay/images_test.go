package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/trace"
)

// writeImageLog writes a two-line chat log whose messages hold images: a PNG and a JPEG inline,
// and one by URL.
func writeImageLog(t *testing.T, withURL bool) string {
	t.Helper()
	png, _ := media.Build(1, 640, 480, media.PNG)
	jpg, _ := media.Build(2, 20, 20, media.JPEG)
	parts := []any{
		map[string]any{"type": "text", "text": "Compare"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": media.DataURL(png.MIME, png.Data)}},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": media.DataURL(jpg.MIME, jpg.Data), "detail": "low"}},
	}
	if withURL {
		parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/x.png"}})
	}
	var b strings.Builder
	for i := range 2 {
		line, _ := json.Marshal(map[string]any{"timestamp": i, "request": map[string]any{"model": "vl", "max_tokens": 4,
			"messages": []any{map[string]any{"role": "user", "content": parts}}}, "response": map[string]any{"usage": map[string]any{"completion_tokens": 4}}})
		fmt.Fprintf(&b, "%s\n", line)
	}
	path := filepath.Join(t.TempDir(), "vision.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImageFlags: a vision log against a model folder with no image rule (the sample
// tokenizer's) stops with the way out named; --image-tokens and --image-size carry it through
// ingest (the media column) and a run against the simulator, which counts by the same flag.
func TestImageFlags(t *testing.T) {
	tok := testenv.SampleTokenizer()
	log := writeImageLog(t, false)
	out := filepath.Join(t.TempDir(), "t.parquet")
	code, _, stderr := runCLI(t, "ingest", "--trace", log, "--format", "openai-log", "--tokenizer", tok, "--out", out)
	if code != 1 || !strings.Contains(stderr, "--image-tokens") || !strings.Contains(stderr, "config.json") {
		t.Fatalf("no rule: exit %d, stderr %q; want 1 naming config.json and --image-tokens", code, stderr)
	}
	code, _, stderr = runCLI(t, "ingest", "--trace", writeImageLog(t, true), "--format", "openai-log", "--tokenizer", tok, "--image-tokens", "300", "--out", out)
	if code != 1 || !strings.Contains(stderr, "--image-size") || !strings.Contains(stderr, ":1") {
		t.Fatalf("URL without a size: exit %d, stderr %q; want 1 naming line 1 and --image-size", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "ingest", "--trace", writeImageLog(t, true), "--format", "openai-log", "--tokenizer", tok,
		"--image-tokens", "300", "--image-size", "1024x768", "--out", out)
	if code != 0 || !strings.Contains(stdout, `"records":2`) || !strings.Contains(stdout, `"images":6`) {
		t.Fatalf("ingest: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	recs, err := trace.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	m := recs[0].Media
	if len(m) != 3 || m[0].Width != 640 || m[1].MIME != media.JPEG || m[1].Detail != "low" || !m[2].URL || m[2].Width != 1024 || recs[0].MediaTokens() != 900 {
		t.Fatalf("media column read back %+v", m)
	}
	dir := t.TempDir()
	code, _, stderr = runCLI(t, "run", "--trace", log, "--format", "openai-log", "--tokenizer", tok, "--image-tokens", "300", "--out", dir)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if s := readRunSummary(t, dir); s.Fidelity.PromptTokensExactPct == nil || *s.Fidelity.PromptTokensExactPct != 100 {
		t.Errorf("prompt tokens exact %v, want 100%%\n%s", s.Fidelity.PromptTokensExactPct, stderr)
	}
}

// TestGatewayImageRun: the gateway presets' logs with images (Bedrock Converse and Anthropic
// bodies, Vertex Gemini inlineData: gatewaylog's fixtures) replay against the simulator with
// their images, the text exact to the logged count less the logged model's image tokens; the
// bad image lines are rejected and counted.
func TestGatewayImageRun(t *testing.T) {
	for _, format := range []string{"bedrock", "vertex"} {
		log := filepath.Join("..", "..", "gatewaylog", "testdata", format+"-images.jsonl")
		out := filepath.Join(t.TempDir(), "t.parquet")
		code, stdout, stderr := runCLI(t, "ingest", "--trace", log, "--format", format, "--on-error", "skip", "--out", out)
		if code != 0 || !strings.Contains(stdout, `"records":2`) || !strings.Contains(stdout, `"images":3`) {
			t.Fatalf("%s ingest: exit %d, stdout %q, stderr %q", format, code, stdout, stderr)
		}
		recs, err := trace.ReadAll(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs[0].Media) != 2 || recs[0].MediaTokens() == 0 {
			t.Fatalf("%s: media column read back %+v", format, recs[0].Media)
		}
		dir := t.TempDir()
		code, _, stderr = runCLI(t, "run", "--trace", log, "--format", format, "--on-error", "skip", "--max-skip", "60%",
			"--max-lateness", "none", "--tokenizer", testenv.SampleTokenizer(), "--image-tokens", "300", "--out", dir)
		if code != 0 {
			t.Fatalf("%s run: exit %d\n%s", format, code, stderr)
		}
		if s := readRunSummary(t, dir); s.Requests.OK != 2 || s.Fidelity.PromptTokensExactPct == nil || *s.Fidelity.PromptTokensExactPct != 100 {
			t.Errorf("%s: %d ok, prompt tokens exact %v, want 2 and 100%%\n%s", format, s.Requests.OK, s.Fidelity.PromptTokensExactPct, stderr)
		}
	}
}
