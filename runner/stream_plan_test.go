package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/gen"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/trace"
)

// A plan built as the run goes sends what the plan built before the run sends, prompt for
// prompt: the same text for every request id (sessions extending their earlier turns alike),
// the same targets, every length exact, for completions and for chat, with or without the
// prompts kept in the rows. Its budget is a few prompts, so most are built while earlier ones
// are in flight; the ideal cache is the same.
func TestStreamedPlanSendsTheSamePrompts(t *testing.T) {
	path, recs := writeGenTrace(t, gen.Config{Shape: "mixed", Duration: 40 * time.Second, Rate: 4, Seed: 9})
	for _, api := range []string{"completions", "chat"} {
		run := func(planMemory int64, keep bool) ([]results.Row, string, *float64) {
			var stderr bytes.Buffer
			sc := sim.DefaultConfig()
			sc.ZeroCost = true
			cfg := Config{Trace: path, Out: t.TempDir(), Client: client.Config{API: api}, KeepPrompts: keep, PlanMemory: planMemory,
				MetricsURL: "none", MaxLateness: -1, Sim: sc, Stderr: &stderr, Stdout: io.Discard}
			cfg.Schedule.Speed = 20
			sum, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatalf("%s, plan memory %d: %v\n%s", api, planMemory, err, stderr.String())
			}
			if sum.Requests.Failed != 0 || sum.Fidelity.PromptTokensExactPct == nil || *sum.Fidelity.PromptTokensExactPct != 100 {
				t.Fatalf("%s, plan memory %d: requests %+v fidelity %+v", api, planMemory, sum.Requests, sum.Fidelity)
			}
			rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			var hit *float64
			if sum.Cache.Ideal != nil {
				hit = &sum.Cache.Ideal.HitPct
			}
			return rows, stderr.String(), hit
		}
		eager, eagerLog, eagerHit := run(-1, true)
		streamed, log, hit := run(64<<10, true)
		// Without --keep-prompts a streamed request drops its text once its body is encoded.
		bare, _, _ := run(64<<10, false)
		if strings.Contains(eagerLog, "as the run goes") || !strings.Contains(log, "as the run goes") {
			t.Fatalf("%s: the eager run's log says it streamed, or the streamed run's does not:\n%s\n---\n%s", api, eagerLog, log)
		}
		if len(eager) != len(recs) || len(streamed) != len(eager) {
			t.Fatalf("%s: %d rows eager, %d streamed, want %d", api, len(eager), len(streamed), len(recs))
		}
		want := map[string]results.Row{}
		for _, r := range eager {
			want[r.RequestID] = r
		}
		turns := 0
		for _, r := range streamed {
			w, ok := want[r.RequestID]
			switch {
			case !ok:
				t.Fatalf("%s: streamed request %s not in the eager run", api, r.RequestID)
			case r.Prompt == "" || r.Prompt != w.Prompt:
				t.Fatalf("%s: request %s: streamed prompt of %d bytes, eager %d, differ", api, r.RequestID, len(r.Prompt), len(w.Prompt))
			case r.TargetPromptTokens != w.TargetPromptTokens || r.PromptTokens != w.PromptTokens || r.TargetOutputTokens != w.TargetOutputTokens || r.SessionID != w.SessionID || r.Turn != w.Turn:
				t.Fatalf("%s: request %s: streamed %+v, eager %+v", api, r.RequestID, r, w)
			}
			if r.Turn > 0 {
				turns++
			}
		}
		for _, r := range bare {
			if w := want[r.RequestID]; r.Prompt != "" || r.PromptTokens != w.PromptTokens || r.CompletionTokens != w.CompletionTokens {
				t.Fatalf("%s: request %s without --keep-prompts: prompt %d bytes, %d/%d tokens, eager %d/%d", api, r.RequestID, len(r.Prompt), r.PromptTokens, r.CompletionTokens, w.PromptTokens, w.CompletionTokens)
			}
		}
		if turns == 0 || eagerHit == nil || hit == nil || *eagerHit != *hit {
			t.Fatalf("%s: %d later turns; ideal hit %v eager, %v streamed", api, turns, eagerHit, hit)
		}
		t.Logf("%s: %d requests (%d later turns of sessions) the same prompt for prompt; ideal hit %.1f%%", api, len(streamed), turns, *hit)
	}
}

// A record a streamed plan cannot build stops the run when the builder reaches it, as it stops
// an eager build before the first send: the error names the file and line, and what was sent
// before it is written and summarised.
func TestStreamedPlanStopsAtABadRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	var b strings.Builder
	for i := range 60 {
		n := 300
		if i == 50 {
			n = 0
		}
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 5}`+"\n", i*20, n)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := sim.DefaultConfig()
	sc.ZeroCost = true
	for _, planMemory := range []int64{-1, 4 << 10} {
		cfg := Config{Trace: path, Out: t.TempDir(), PlanMemory: planMemory, MetricsURL: "none", MaxLateness: -1, Sim: sc,
			Stderr: io.Discard, Stdout: io.Discard}
		_, err := Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), "bad.jsonl:51") || !strings.Contains(err.Error(), "prompt_tokens 0") {
			t.Fatalf("plan memory %d: %v, want the record's error", planMemory, err)
		}
		s, serr := analysis.ReadSummary(filepath.Join(cfg.Out, runfolder.Summary))
		switch {
		case planMemory < 0 && serr == nil:
			t.Fatalf("eager: a summary of a run that never sent")
		case planMemory > 0 && (serr != nil || s.Requests.OK < 40 || !analysis.VerdictIs(s.Verdict, analysis.VerdictInterrupted)):
			t.Fatalf("streamed: summary %v, requests %+v, verdict %q: want the sends before the record", serr, s.Requests, s.Verdict)
		}
	}
}

// A shard's streamed plan builds every request, in order, and sends its own share: the same
// request ids and prompts as the shard built before the run.
func TestStreamedPlanShard(t *testing.T) {
	path, recs := writeGenTrace(t, gen.Config{Shape: "mixed", Duration: 30 * time.Second, Rate: 4, Seed: 11})
	run := func(planMemory int64) map[string]string {
		sc := sim.DefaultConfig()
		sc.ZeroCost = true
		var stderr bytes.Buffer
		cfg := Config{Trace: path, Out: t.TempDir(), KeepPrompts: true, PlanMemory: planMemory, MetricsURL: "none", MaxLateness: -1,
			Sim: sc, Stderr: &stderr, Stdout: io.Discard}
		cfg.Schedule.Speed, cfg.Schedule.Shard, cfg.Schedule.Shards = 20, 1, 2
		cfg.Schedule.StartAt = time.Now().Add(2 * time.Second) // the shared instant of a sharded run
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatalf("plan memory %d: %v\n%s", planMemory, err, stderr.String())
		}
		rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range rows {
			if !r.OK() {
				t.Fatalf("plan memory %d: request %s failed: %s", planMemory, r.RequestID, r.ErrorMessage)
			}
			out[r.RequestID] = r.Prompt
		}
		return out
	}
	eager, streamed := run(-1), run(16<<10)
	if len(eager) == 0 || len(eager) >= len(recs) || !reflect.DeepEqual(eager, streamed) {
		t.Fatalf("shard 1 of 2: %d requests eager, %d streamed (of %d); same prompts: %v", len(eager), len(streamed), len(recs), reflect.DeepEqual(eager, streamed))
	}
	t.Logf("shard 1 of 2: %d of %d requests, the same prompts", len(streamed), len(recs))
}

// writeGenTrace writes the trace gen makes with cfg to a JSONL file and returns its path and
// records.
func writeGenTrace(t *testing.T, cfg gen.Config) (string, []trace.Record) {
	t.Helper()
	recs, err := gen.Records(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := gen.WriteRecords(&b, recs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, recs
}
