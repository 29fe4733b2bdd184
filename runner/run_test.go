package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/trace"
)

// TestTwoMinuteWindows replays a 2-minute window from the middle of each shared trace at 2x
// against the simulator and checks the run's accounting against the trace itself: exactly one
// row per record, the server-counted prompt and output tokens equal to what was synthesized,
// every request's schedule equal to its trace offset / 2, and its lateness recorded.
func TestTwoMinuteWindows(t *testing.T) {
	cases := []struct {
		trace, tokenizer string
		from             time.Duration
	}{
		{"azure2023_conv.csv", "llama3", 20 * time.Minute},
		{"mooncake_synthetic.jsonl", "qwen3", 5 * time.Minute},
	}
	for _, c := range cases {
		t.Run(c.trace, func(t *testing.T) {
			t.Parallel()
			path := testenv.SharedTrace(t, c.trace)
			want := window(t, path, c.from, c.from+2*time.Minute)
			sc := sim.DefaultConfig()
			sc.ZeroCost = true // the run's accounting is under test here, not the cost model
			cfg := Config{
				Trace: path, Out: t.TempDir(), Tokenizer: testenv.Tokenizer(t, c.tokenizer),
				Schedule: scheduler.Config{Speed: 2, From: c.from, To: c.from + 2*time.Minute},
				Sim:      sc, Stderr: io.Discard, Stdout: io.Discard,
			}
			sum, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(want) || sum.Requests.Total != int64(len(want)) || sum.Requests.OK != int64(len(want)) {
				var failed []string // say why, so a failure seen once under load can be read
				for _, r := range rows {
					if r.ErrorClass != "" && len(failed) < 5 {
						failed = append(failed, fmt.Sprintf("%s: %s (sent %.3f s)", r.ErrorClass, r.ErrorMessage, float64(r.SentNS)/1e9))
					}
				}
				t.Fatalf("%d rows, summary %+v; the window holds %d records; failures: %q", len(rows), sum.Requests, len(want), failed)
			}
			// Request ids are the records' positions in the window (equal timestamps tie).
			sort.Slice(rows, func(i, j int) bool { return id(t, rows[i]) < id(t, rows[j]) })
			origin := want[0].Timestamp
			for i, r := range rows {
				rec := want[i]
				if r.ErrorClass != "" {
					t.Fatalf("row %d failed: %s %s", i, r.ErrorClass, r.ErrorMessage)
				}
				if int(r.TargetPromptTokens) != rec.PromptTokens || r.PromptTokens != r.TargetPromptTokens {
					t.Fatalf("row %d: trace prompt %d, target %d, server counted %d", i, rec.PromptTokens, r.TargetPromptTokens, r.PromptTokens)
				}
				if int(r.TargetOutputTokens) != max(rec.OutputTokens, 1) || r.CompletionTokens != r.TargetOutputTokens {
					t.Fatalf("row %d: trace output %d, target %d, server produced %d", i, rec.OutputTokens, r.TargetOutputTokens, r.CompletionTokens)
				}
				if sched := int64(rec.Timestamp-origin) / 2; r.ScheduledNS < sched-1000 || r.ScheduledNS > sched+1000 {
					t.Fatalf("row %d scheduled at %d ns, want (timestamp - first) / 2 = %d ns", i, r.ScheduledNS, sched)
				}
				if r.SentNS < r.ScheduledNS || r.DoneNS < r.SentNS {
					t.Fatalf("row %d: scheduled %d, sent %d, done %d: lateness not recorded", i, r.ScheduledNS, r.SentNS, r.DoneNS)
				}
			}
			if sum.Fidelity.PromptTokensExactPct == nil || *sum.Fidelity.PromptTokensExactPct != 100 {
				t.Fatalf("summary fidelity %+v, want 100%% prompt tokens exact", sum.Fidelity)
			}
		})
	}
}

func id(t *testing.T, r results.Row) int {
	n, err := strconv.Atoi(r.RequestID)
	if err != nil {
		t.Fatalf("request id %q: %v", r.RequestID, err)
	}
	return n
}

// window reads the records of [from, to) straight from the trace.
func window(t *testing.T, path string, from, to time.Duration) []trace.Record {
	t.Helper()
	recs, _, err := ingest.ReadAll(path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []trace.Record
	for _, r := range recs {
		if r.Timestamp >= from && r.Timestamp < to {
			out = append(out, r)
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d records in the window", len(out))
	}
	return out
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8000":         "http://127.0.0.1:8000/v1",
		"http://127.0.0.1:8000/":        "http://127.0.0.1:8000/v1",
		"http://127.0.0.1:8000/v1":      "http://127.0.0.1:8000/v1",
		"http://127.0.0.1:8000/v1/":     "http://127.0.0.1:8000/v1",
		"https://gw.local/openai/v1":    "https://gw.local/openai/v1",
		"http://127.0.0.1:11434/v1?x=1": "http://127.0.0.1:11434/v1?x=1",
	} {
		got, err := baseURL(in)
		if err != nil || got != want {
			t.Errorf("baseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "127.0.0.1:8000", "localhost", "://x"} {
		if _, err := baseURL(bad); err == nil {
			t.Errorf("baseURL(%q) accepted a URL without scheme and host", bad)
		}
	}
}

// TestMaxConcurrencyQueueWait: under --max-concurrency 1, requests that arrive together queue
// behind each other; the rows must carry that wait, and latency from the scheduled time must
// include it (no coordinated omission).
func TestMaxConcurrencyQueueWait(t *testing.T) {
	p := filepath.Join(t.TempDir(), "burst.csv")
	csv := "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	for range 4 {
		csv += "2024-01-01 00:00:00.0000000,50,20\n"
	}
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := sim.DefaultConfig() // 20 decode steps of ~15 ms: each request takes ~300 ms
	cfg := Config{
		Trace: p, Out: t.TempDir(), Tokenizer: testenv.SampleTokenizer(),
		Schedule: scheduler.Config{Speed: 1, MaxConcurrency: 1},
		Sim:      sc, Stderr: io.Discard, Stdout: io.Discard,
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].QueueWaitNS < rows[j].QueueWaitNS })
	for i, r := range rows {
		if r.ErrorClass != "" {
			t.Fatalf("row %d failed: %s", i, r.ErrorMessage)
		}
		// The k-th request waits for the k requests before it, each at least 20 steps long.
		if want := int64(i) * int64(20*sc.StepBase); r.QueueWaitNS < want {
			t.Fatalf("row %d waited %v for its slot, want at least %v", i, time.Duration(r.QueueWaitNS), time.Duration(want))
		}
		if r.SentNS-r.ScheduledNS < r.QueueWaitNS {
			t.Fatalf("row %d: sent - scheduled %v does not include the queue wait %v", i, time.Duration(r.SentNS-r.ScheduledNS), time.Duration(r.QueueWaitNS))
		}
	}
	last := rows[len(rows)-1]
	if sum.QueueWait.Max < float64(last.QueueWaitNS)/1e6*0.99 {
		t.Fatalf("summary queue wait max %.1f ms, the last row waited %.1f ms", sum.QueueWait.Max, float64(last.QueueWaitNS)/1e6)
	}
	if sum.TTFTSched.Max < sum.TTFT.Max+float64(last.QueueWaitNS)/1e6*0.9 {
		t.Fatalf("TTFT from scheduled time (max %.1f ms) does not include the queue wait (%.1f ms) on top of TTFT (max %.1f ms)",
			sum.TTFTSched.Max, float64(last.QueueWaitNS)/1e6, sum.TTFT.Max)
	}
}
