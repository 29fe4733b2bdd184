package analysis

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

const ms = int64(time.Millisecond)

func summarize(t *testing.T, o Options, rows ...results.Row) *Summary {
	t.Helper()
	m := NewMetrics(o)
	for i := range rows {
		m.Add(&rows[i])
	}
	return m.Summary(RunInfo{})
}

// near checks a histogram-derived figure: HdrHistogram with 3 significant digits is exact to 0.1%.
func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 0.001*math.Abs(want)+1e-9 {
		t.Errorf("%s = %v, want %v (±0.1%%)", name, got, want)
	}
}

func exact(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func TestTTFTPercentiles(t *testing.T) {
	// Four TTFTs 100..400 ms: nearest rank p50 = 2nd = 200, p90/p95/p99 = 4th = 400, mean 250.
	s := summarize(t, Options{},
		testenv.OKRow("a", 0, 300), testenv.OKRow("b", 10, 100), testenv.OKRow("c", 20, 400), testenv.OKRow("d", 30, 200))
	if s.TTFT.Count != 4 {
		t.Fatalf("count %d", s.TTFT.Count)
	}
	near(t, "p50", s.TTFT.P50, 200)
	near(t, "p90", s.TTFT.P90, 400)
	exact(t, "p99", s.TTFT.P99, 400)
	exact(t, "max", s.TTFT.Max, 400)
	exact(t, "min", s.TTFT.Min, 100)
	exact(t, "mean", s.TTFT.Mean, 250)
	// On schedule, no queue: TTFT from scheduled time equals TTFT.
	exact(t, "sched max", s.TTFTSched.Max, 400)
	exact(t, "lateness max", s.Lateness.Max, 0)
}

func TestFailedAndWarmupExcluded(t *testing.T) {
	failed := testenv.OKRow("f", 40, 5)
	failed.ErrorClass, failed.ErrorMessage, failed.HTTPStatus = "http_5xx", "upstream exploded", 503
	warm := testenv.OKRow("w", 0, 9000)
	warm.Warmup = true
	s := summarize(t, Options{}, testenv.OKRow("a", 0, 100), testenv.OKRow("b", 10, 300), failed, warm)
	if s.Requests != (Requests{Total: 3, OK: 2, Failed: 1, Warmup: 1}) {
		t.Errorf("requests %+v", s.Requests)
	}
	if s.TTFT.Count != 2 || s.TTFT.Max != 300 || s.TTFT.Min != 100 {
		t.Errorf("ttft %+v: failed or warmup row leaked in", s.TTFT)
	}
	if s.Errors["http_5xx"] != 1 || len(s.Errors) != 1 {
		t.Errorf("errors %v", s.Errors)
	}
	if s.ErrorSamples["http_5xx"] != "upstream exploded" {
		t.Errorf("samples %v", s.ErrorSamples)
	}
	// Lateness and queue wait count every request that left, failed ones included.
	if s.Lateness.Count != 3 || s.QueueWait.Count != 3 {
		t.Errorf("lateness count %d queue count %d, want 3", s.Lateness.Count, s.QueueWait.Count)
	}
}

func TestITLAndTPOT(t *testing.T) {
	// Gaps 10, 20, 30 ms: ITL p50 = 20, max 30, mean 20; TPOT = 60 ms / (4 - 1) = 20 ms.
	r := testenv.OKRow("a", 0, 50, 10, 20, 30)
	s := summarize(t, Options{}, r)
	near(t, "itl p50", s.ITL.P50, 20)
	exact(t, "itl max", s.ITL.Max, 30)
	exact(t, "itl mean", s.ITL.Mean, 20)
	exact(t, "tpot", s.TPOT.Max, 20)

	// Usage says 7 tokens in those 4 chunks: TPOT = 60 / 6 = 10 ms.
	r.CompletionTokens = 7
	exact(t, "tpot with usage", summarize(t, Options{}, r).TPOT.Max, 10)

	// No usage: the 4 chunks seen count, not the target.
	r.CompletionTokens, r.PromptTokens, r.TargetOutputTokens = -1, -1, 61
	s = summarize(t, Options{}, r)
	exact(t, "tpot without usage", s.TPOT.Max, 20)
	if s.Throughput.OutputTokens != 4 || s.Throughput.InputTokens != 100 {
		t.Errorf("tokens without usage: out %d in %d, want 4 and the prompt target 100",
			s.Throughput.OutputTokens, s.Throughput.InputTokens)
	}
	// A single token has no TPOT and no ITL.
	s = summarize(t, Options{}, testenv.OKRow("one", 0, 50))
	if s.TPOT.Count != 0 || s.ITL.Count != 0 {
		t.Errorf("single token: tpot %+v itl %+v", s.TPOT, s.ITL)
	}
}

func TestLatenessQueueAndScheduledLatency(t *testing.T) {
	r := testenv.OKRow("a", 1000, 100, 10) // sent at 1 s, first token 1.1 s, done 1.11 s
	r.ScheduledNS = 993 * ms               // due at 0.993 s ...
	r.QueueWaitNS = 5 * ms                 // ... waited 5 ms for a slot, so the timer was 2 ms late
	s := summarize(t, Options{}, r)
	exact(t, "lateness", s.Lateness.Max, 2)
	exact(t, "queue wait", s.QueueWait.Max, 5)
	exact(t, "ttft", s.TTFT.Max, 100)
	exact(t, "ttft sched", s.TTFTSched.Max, 107)
	exact(t, "e2e", s.E2E.Max, 110)
	exact(t, "e2e sched", s.E2ESched.Max, 117)
}

func TestThroughput(t *testing.T) {
	// Sends at 0 and 1000 ms; the last ends at 1000+200+3*100 = 1500 ms: span 1.5 s.
	a := testenv.OKRow("a", 0, 100, 100, 100)
	b := testenv.OKRow("b", 1000, 200, 100, 100, 100)
	b.PromptTokens = 200
	s := summarize(t, Options{}, a, b)
	exact(t, "duration", s.Throughput.DurationS, 1.5)
	exact(t, "req/s", s.Throughput.ReqS, round3(2/1.5))
	exact(t, "input tok/s", s.Throughput.InputTokS, 300/1.5)
	exact(t, "output tok/s", s.Throughput.OutputTokS, round3(7/1.5))
}

func TestGoodput(t *testing.T) {
	slo, err := ParseSLO("ttft=250ms,itl=50ms")
	if err != nil {
		t.Fatal(err)
	}
	failed := testenv.OKRow("f", 30, 10)
	failed.ErrorClass = "timeout"
	late := testenv.OKRow("late", 40, 100, 10) // TTFT 100 from send but due 200 ms earlier: 300 from schedule
	late.ScheduledNS -= 200 * ms
	s := summarize(t, Options{SLO: slo},
		testenv.OKRow("good", 0, 100, 10, 20),
		testenv.OKRow("slowttft", 10, 300, 10),
		testenv.OKRow("stutter", 20, 100, 10, 80),
		failed, late)
	g := s.Goodput
	if g == nil {
		t.Fatal("no goodput")
	}
	// ttft met by good, stutter (2 of 5); itl by good, slowttft, late (3 of 5); all: good only.
	exact(t, "ttft met", g.MetPct["ttft"], 40)
	exact(t, "itl met", g.MetPct["itl"], 60)
	exact(t, "all", g.AllPct, 20)
	if _, ok := g.MetPct["e2e"]; ok {
		t.Error("e2e reported although not in the SLO")
	}
	if g.LimitsMS["ttft"] != 250 || g.SLO != "ttft=250ms,itl=50ms" {
		t.Errorf("limits %v slo %q", g.LimitsMS, g.SLO)
	}
	if summarize(t, Options{}, testenv.OKRow("a", 0, 1)).Goodput != nil {
		t.Error("goodput without SLO")
	}
}

func TestFidelityAndCache(t *testing.T) {
	a := testenv.OKRow("a", 0, 10, 10) // exact usage
	b := testenv.OKRow("b", 10, 10, 10)
	b.PromptTokens = 101 // prompt off by one
	b.CachedTokens = 64
	c := testenv.OKRow("c", 20, 10, 10)
	c.CompletionTokens = 1 // stopped early
	c.CachedTokens = 36
	d := testenv.OKRow("d", 30, 10, 10)
	d.PromptTokens, d.CompletionTokens = -1, -1 // no usage: not in the fidelity figures
	s := summarize(t, Options{}, a, b, c, d)
	f := s.Fidelity
	if f.UsageReported != 3 {
		t.Errorf("usage reported %d, want 3", f.UsageReported)
	}
	exact(t, "prompt exact", *f.PromptTokensExactPct, round3(200.0/3))
	exact(t, "output exact", *f.OutputTokensExactPct, round3(200.0/3))
	if s.Cache.CachedTokens != 100 || s.Cache.PromptTokens != 301 {
		t.Errorf("cache %+v", s.Cache)
	}
	exact(t, "cache hit", *s.Cache.HitPct, round3(100*100.0/301))

	s = summarize(t, Options{}, d)
	if s.Fidelity.PromptTokensExactPct != nil || s.Cache.HitPct != nil {
		t.Error("fidelity figures without any usage")
	}
}

func TestWindows(t *testing.T) {
	// One request in flight from 0.5 s to 1.5 s: half a request in flight in seconds 0 and 1.
	r := testenv.OKRow("a", 500, 100, 900)
	m := NewMetrics(Options{})
	m.Add(&r)
	m.Close()
	width, ws := m.Windows()
	if width != 1 || len(ws) != 2 {
		t.Fatalf("width %d windows %d", width, len(ws))
	}
	exact(t, "inflight 0", ws[0].InFlight, 0.5)
	exact(t, "inflight 1", ws[1].InFlight, 0.5)
	exact(t, "sends 0", ws[0].SendRate, 1)
	exact(t, "scheduled 0", ws[0].ScheduledRate, 1)
	exact(t, "completions 1", ws[1].CompletionRate, 1)
	exact(t, "tokens 0", ws[0].OutputTokS, 1) // first chunk at 0.6 s
	exact(t, "tokens 1", ws[1].OutputTokS, 1) // second at 1.5 s
	exact(t, "ttft p95", ws[0].TTFTP95MS, 100)
}

func TestSummaryJSONKeys(t *testing.T) {
	slo, _ := ParseSLO("ttft=1s")
	dir := t.TempDir()
	s := summarize(t, Options{SLO: slo}, testenv.OKRow("a", 0, 100, 10), testenv.OKRow("b", 10, 100, 10), testenv.OKRow("c", 20, 100, 10))
	s.Run = RunInfo{Endpoint: "http://127.0.0.1:1/v1", Model: "m", Speed: 2, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := WriteSummary(dir, s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	req := doc["requests"].(map[string]any)
	for _, k := range []string{"total", "ok", "failed"} {
		if _, ok := req[k]; !ok {
			t.Errorf("requests.%s missing", k)
		}
	}
	for _, d := range []string{"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms", "lateness_ms", "queue_wait_ms"} {
		obj, ok := doc[d].(map[string]any)
		if !ok {
			t.Errorf("%s missing", d)
			continue
		}
		for _, k := range []string{"p50", "p90", "p95", "p99", "max", "mean"} {
			if _, ok := obj[k]; !ok {
				t.Errorf("%s.%s missing", d, k)
			}
		}
	}
	for _, k := range []string{"req_s", "input_tok_s", "output_tok_s"} {
		if _, ok := doc["throughput"].(map[string]any)[k]; !ok {
			t.Errorf("throughput.%s missing", k)
		}
	}
	for _, k := range []string{"prompt_tokens_exact_pct", "output_tokens_exact_pct"} {
		if v := doc["fidelity"].(map[string]any)[k]; v != 100.0 {
			t.Errorf("fidelity.%s = %v, want 100", k, v)
		}
	}
	if _, ok := doc["goodput"]; !ok {
		t.Error("goodput missing")
	}
	back, err := ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if back.Run.Speed != 2 || back.TTFT != s.TTFT || !back.Run.StartedAt.Equal(s.Run.StartedAt) {
		t.Errorf("round trip: %+v", back.Run)
	}
}

func TestCost(t *testing.T) {
	// 1.5 s span; 3 + 4 output tokens. At $2/GPU-hour on 4 GPUs ($8/h) and 7/1.5 tok/s:
	// 8 / (7/1.5*3600) * 1e6 = $476.1905 per million. Only b (TTFT 200 ms) misses ttft=150ms:
	// 3 tokens in 1.5 s at SLO: 8 / (2*3600) * 1e6 = $1111.1111.
	slo, _ := ParseSLO("ttft=150ms")
	a := testenv.OKRow("a", 0, 100, 100, 100)
	b := testenv.OKRow("b", 1000, 200, 100, 100, 100)
	s := summarize(t, Options{SLO: slo, CostPerHour: 2, GPUs: 4}, a, b)
	if s.Cost == nil || s.Cost.GPUs != 4 {
		t.Fatalf("cost %+v", s.Cost)
	}
	exact(t, "per M", *s.Cost.PerMOutputTokens, 476.1905)
	exact(t, "per M at SLO", *s.Cost.PerMOutputTokensSLO, 1111.1111)
	if summarize(t, Options{}, a).Cost != nil {
		t.Error("cost without a price")
	}
}

// TestCostWorkedExample is the worked example by hand: $2 per GPU-hour on 8 GPUs is $16 an
// hour; 1,000 output tokens a second is 3.6 M tokens an hour; 16 / 3.6 = $4.4444 per million.
// Two requests of 500 output tokens each over exactly one second give those 1,000 tok/s. With
// ttft=150ms the second (TTFT 200 ms) misses the SLO, so only 500 tok/s count at the SLO:
// $8.8889 per million.
func TestCostWorkedExample(t *testing.T) {
	a := testenv.OKRow("a", 0, 100, 900)
	b := testenv.OKRow("b", 0, 200, 800)
	for _, r := range []*results.Row{&a, &b} {
		r.CompletionTokens, r.TargetOutputTokens = 500, 500
	}
	slo, err := ParseSLO("ttft=150ms")
	if err != nil {
		t.Fatal(err)
	}
	s := summarize(t, Options{SLO: slo, CostPerHour: 2, GPUs: 8}, a, b)
	exact(t, "output tok/s", s.Throughput.OutputTokS, 1000)
	exact(t, "$/M output tokens", *s.Cost.PerMOutputTokens, 4.4444)
	exact(t, "$/M output tokens at SLO", *s.Cost.PerMOutputTokensSLO, 8.8889)
	if v := PerMTokens(2*8, 1000); *v != 4.4444 {
		t.Errorf("PerMTokens(16, 1000) = %v", *v)
	}
}

// TestSessions counts sessions from their turns: three sessions (a, b, c), two of them past one
// turn, three later turns; a warmup row and a request without a session count in none.
func TestSessions(t *testing.T) {
	var rows []results.Row
	for i, st := range []struct {
		id   string
		turn int32
	}{{"a", 0}, {"b", 0}, {"a", 1}, {"c", 0}, {"a", 2}, {"b", 1}, {"", 0}} {
		r := testenv.OKRow(string(rune('0'+i)), int64(i)*100, 10, 5)
		r.SessionID, r.Turn = st.id, st.turn
		rows = append(rows, r)
	}
	w := testenv.OKRow("w", 0, 10, 5)
	w.Warmup, w.SessionID = true, "a"
	rows = append(rows, w)
	s := summarize(t, Options{}, rows...)
	if s.Sessions == nil || *s.Sessions != (Sessions{Requests: 6, Sessions: 3, MultiTurn: 2, LaterTurns: 3}) {
		t.Fatalf("sessions %+v, want 6 requests in 3 sessions, 2 multi-turn, 3 later turns", s.Sessions)
	}
	if s := summarize(t, Options{}, testenv.OKRow("x", 0, 10, 5)); s.Sessions != nil {
		t.Fatalf("a run without sessions has sessions %+v", s.Sessions)
	}
}
