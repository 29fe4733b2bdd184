package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/genlog"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/scheduler"
)

// TestRequestLogReplay replays a generated raw request log (chat and completions requests,
// shared system prompts, growing conversations) straight from the log (--format openai-log)
// against the simulator over loopback HTTP. Every request's target is the reader's own count
// of the logged prompt and the server counts exactly that; and the hit rate measured from
// usage.cached_tokens is within a few points of the ideal one computed by prefixcache from the
// log's own block hashes, as `replay cache-sim` computes it on the exported trace (less the
// last block of a prompt that is cached whole, which an engine computes again).
func TestRequestLogReplay(t *testing.T) {
	const n = 300
	var buf bytes.Buffer
	if _, err := genlog.Generate(&buf, n, 1); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gateway.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tokPath := testenv.Tokenizer(t, "qwen3")

	// What the reader makes of the log on its own.
	tok, chat, err := requestlog.LoadModel(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := requestlog.Open(path, requestlog.Options{Tokenizer: tok, Chat: chat, HashKey: []byte("a fixed key for the test's own read")})
	if err != nil {
		t.Fatal(err)
	}
	var prompts []int
	var hashes [][]uint64
	promptTokens := 0
	for {
		req, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, req.PromptTokens)
		// An engine computes at least a prompt's last token, so a prompt made only of
		// cached blocks still recomputes its last block (vLLM does; so does the simulator).
		hashes = append(hashes, req.BlockHashes[:min(len(req.BlockHashes), (req.PromptTokens-1)/requestlog.DefaultBlockSize)])
		promptTokens += req.PromptTokens
	}
	rd.Close()
	ideal := prefixcache.HitRate(hashes, 0)
	idealPct := 100 * float64(ideal.Hits) / float64(ideal.Blocks)
	idealTokenPct := 100 * float64(ideal.Hits*requestlog.DefaultBlockSize) / float64(promptTokens)

	// A simulator whose KV cache holds the whole log and whose steps are short, so a
	// conversation's next turn finds the previous one's blocks cached, as a roomy server would.
	sc := roomySim(2 * time.Millisecond)
	var stderr bytes.Buffer
	cfg := Config{
		Trace: path, Ingest: ingest.Options{Format: ingest.FormatOpenAILog}, Out: t.TempDir(),
		Tokenizer: tokPath, Schedule: scheduler.Config{Speed: 10}, Sim: sc,
		Stderr: &stderr, Stdout: io.Discard,
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n || sum.Requests.OK != n {
		t.Fatalf("%d rows, summary %+v, want %d ok\n%s", len(rows), sum.Requests, n, stderr.String())
	}
	for _, r := range rows {
		i := id(t, r)
		if int(r.TargetPromptTokens) != prompts[i] || r.PromptTokens != r.TargetPromptTokens {
			t.Fatalf("request %d: the log's prompt counts %d tokens, target %d, server counted %d", i, prompts[i], r.TargetPromptTokens, r.PromptTokens)
		}
	}
	c := sum.Cache
	if c.HitPct == nil {
		t.Fatalf("no measured hit rate: %+v", c)
	}
	t.Logf("%d logged requests at 10x: hit rate from usage.cached_tokens %.2f%% of prompt tokens; ideal %.2f%% of prompt tokens (%.2f%% of %d blocks)",
		n, *c.HitPct, idealTokenPct, idealPct, ideal.Blocks)
	if idealPct < 30 {
		t.Fatalf("ideal block hit rate %.1f%%: the log shares too little for the comparison to mean anything", idealPct)
	}
	if c.IdealHitPct == nil {
		t.Fatalf("no ideal hit rate in the summary: %+v", c)
	}
	if d := math.Abs(*c.IdealHitPct - idealTokenPct); d > 0.1 {
		t.Errorf("the summary's ideal hit rate %.3f%%, this test's %.3f%%", *c.IdealHitPct, idealTokenPct)
	}
	if d := math.Abs(*c.HitPct - idealTokenPct); d > 1 {
		t.Errorf("measured hit rate %.2f%% is %.2f points from the ideal %.2f%%", *c.HitPct, d, idealTokenPct)
	}
}
