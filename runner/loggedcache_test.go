package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/scheduler"
)

// writeTokensOnlyLog writes a gateway log with no prompt text, only token counts, as Envoy AI
// Gateway or a spend log keeps them: users in conversations whose next request reuses the
// previous one's prompt (logged as cached tokens, in whole 16-token blocks as vLLM counts
// them), sometimes not at all (evicted: 0 cached), and one-off requests with nothing cached.
// It returns the log's own hit rate, cached over prompt tokens.
func writeTokensOnlyLog(path string, n int, seed uint64) (float64, error) {
	rng := rand.New(rand.NewPCG(seed, 1))
	type user struct{ prompt int }
	users := make([]user, 24)
	var b strings.Builder
	var cached, prompt int
	at := 1_700_000_000.0
	for i := range n {
		at += rng.ExpFloat64() * 0.5
		u := rng.IntN(len(users))
		out := 20 + rng.IntN(60)
		p, c := 200+rng.IntN(400), 0
		switch {
		case users[u].prompt == 0 || rng.IntN(10) == 0: // a new conversation
		case rng.IntN(8) == 0: // the same conversation, its prefix evicted meanwhile
			p = users[u].prompt + out + 50 + rng.IntN(200)
		default:
			p = users[u].prompt + out + 50 + rng.IntN(200)
			c = users[u].prompt / 16 * 16
		}
		if p > 6000 {
			p, c = 200+rng.IntN(400), 0
		}
		users[u].prompt = p
		cached += c
		prompt += p
		fmt.Fprintf(&b, `{"start_time":%.3f,"user":"user-%d","usage":{"prompt_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}},"id":"r%d"}`+"\n",
			at, u, p, out, c, i)
	}
	return 100 * float64(cached) / float64(prompt), os.WriteFile(path, []byte(b.String()), 0o644)
}

// TestTokensOnlyLogReplaysItsHitRate replays a tokens-only log with logged cached-token counts
// (read with --map, cached_tokens among the fields) against the simulator over loopback HTTP:
// the prefixes synthesized from the counts make the simulator's prefix cache hit as the log
// says the production one did, within 2 points, and the summary sets the two side by side.
func TestTokensOnlyLogReplaysItsHitRate(t *testing.T) {
	const n = 400
	path := filepath.Join(t.TempDir(), "tokens-only.jsonl")
	logged, err := writeTokensOnlyLog(path, n, 7)
	if err != nil {
		t.Fatal(err)
	}
	// A roomy simulator with fast steps, so a conversation's previous request is cached
	// (and its prefill done) when the next one arrives.
	sc := roomySim(2 * time.Millisecond)
	var stderr bytes.Buffer
	cfg := Config{
		Trace: path, Out: t.TempDir(), Tokenizer: testenv.SampleTokenizer(),
		Ingest: ingest.Options{Format: ingest.FormatJSONL, Map: map[string]string{
			"timestamp": "start_time", "prompt_tokens": "usage.prompt_tokens", "output_tokens": "usage.completion_tokens",
			"cached_tokens": "usage.prompt_tokens_details.cached_tokens", "session_id": "user"}},
		Schedule: scheduler.Config{Speed: 10}, Sim: sc, Stderr: &stderr, Stdout: io.Discard,
	}
	cfg.Client.API = "completions"
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	c := sum.Cache
	if sum.Requests.OK != n || c.HitPct == nil || c.LoggedHitPct == nil {
		t.Fatalf("requests %+v, cache %+v\n%s", sum.Requests, c, stderr.String())
	}
	t.Logf("%d tokens-only requests at 10x: logged hit rate %.2f%% (this test's count %.2f%%), measured from usage %.2f%%, ideal over the synthesized hashes %.2f%%",
		n, *c.LoggedHitPct, logged, *c.HitPct, *c.IdealHitPct)
	if logged < 20 {
		t.Fatalf("the log's hit rate %.1f%% is too low for the comparison to mean anything", logged)
	}
	if d := math.Abs(*c.LoggedHitPct - logged); d > 0.01 {
		t.Errorf("summary's logged hit rate %.3f%%, the log's %.3f%%", *c.LoggedHitPct, logged)
	}
	if d := math.Abs(*c.HitPct - logged); d > 2 {
		t.Errorf("measured hit rate %.2f%% is %.2f points from the logged %.2f%%", *c.HitPct, d, logged)
	}
	if strings.Contains(stderr.String(), "prefix sharing is unknown") {
		t.Errorf("a log with cached counts said prefix sharing is unknown:\n%s", stderr.String())
	}
}

// TestTokensOnlyLogWithoutCachedSaysUnknown: the same log without cached counts replays with
// unique prefixes and says prefix sharing is unknown.
func TestTokensOnlyLogWithoutCachedSaysUnknown(t *testing.T) {
	const n = 40
	path := filepath.Join(t.TempDir(), "tokens-only.jsonl")
	if _, err := writeTokensOnlyLog(path, n, 8); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cfg := Config{
		Trace: path, Out: t.TempDir(), Tokenizer: testenv.SampleTokenizer(),
		Ingest: ingest.Options{Format: ingest.FormatJSONL, Map: map[string]string{
			"timestamp": "start_time", "prompt_tokens": "usage.prompt_tokens", "output_tokens": "usage.completion_tokens"}},
		Schedule: scheduler.Config{Speed: 20}, Stderr: &stderr, Stdout: io.Discard,
	}
	cfg.Client.API = "completions"
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "prefix sharing is unknown") || sum.Cache.LoggedHitPct != nil {
		t.Errorf("logged %v; stderr:\n%s", sum.Cache.LoggedHitPct, stderr.String())
	}
}
