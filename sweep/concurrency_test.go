package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/calibrate"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
)

// writeEvenTrace writes n requests of prompt and output tokens, 100 ms apart, as an Azure CSV.
func writeEvenTrace(t *testing.T, n, prompt, output int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "even.csv")
	var b strings.Builder
	b.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\n")
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(&b, "%s,%d,%d\n", start.Add(time.Duration(i)*100*time.Millisecond).Format("2006-01-02 15:04:05.0000000"), prompt, output)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSweepConcurrencyFindsBatchLimit sweeps closed loop against a simulator that runs at most 8
// sequences at once and checks the knee lands on 8. The cost model (no jitter, no per-sequence
// or per-KV-token cost) says why: a step is 4 ms plus 20 µs per prompt token prefilled, and a
// request of 64 prompt and 30 output tokens holds a slot for 30 steps, about 125 ms. Up to 8 in
// flight, a request is admitted at the next step and prefilled in it: TTFT is at most one step
// of waiting plus a step with 8 prompts prefilled, 4 + 1.3 + 4 + 8 x 1.3 = 20 ms. At 16, half
// the requests wait for a slot, a whole service time by Little's law: TTFT p95 over 100 ms. The
// SLO's 70 ms sits between with a margin of 2x each side (this machine's noise included).
func TestSweepConcurrencyFindsBatchLimit(t *testing.T) {
	tr := writeEvenTrace(t, 48, 64, 30)
	sc := sim.DefaultConfig()
	sc.MaxBatch, sc.StepBase, sc.StepPerSeq, sc.StepPerKVToken, sc.Jitter = 8, 4*time.Millisecond, 0, 0, 0
	sc.PrefillPerToken = 20 * time.Microsecond
	var stderr bytes.Buffer
	// The SLO comes from a calibration of the same engine, as the capacity loop has it: p95
	// TTFT within ten times the single-request TTFT of the trace's 64-token prompts, so a
	// request may wait behind a few batches' decode steps but not queue for a whole batch.
	cal, err := calibrate.Run(context.Background(), runner.Config{Out: t.TempDir(), Tokenizer: testenv.SampleTokenizer(), Sim: sc, Stderr: &stderr},
		calibrate.Options{PromptTokens: []int{32, 64, 128, 256}, OutputTokens: []int{4}, Repeats: 1, NoCached: true})
	if err != nil {
		t.Fatalf("calibrating: %v\n%s", err, stderr.String())
	}
	slo := fmt.Sprintf("ttft=%.0fms", math.Ceil(10*cal.PredictTTFTMS(64)))
	t.Logf("calibrated single-request TTFT at 64 tokens: %.1f ms, so --slo %s", cal.PredictTTFTMS(64), slo)
	cfg := runner.Config{Trace: tr, Out: t.TempDir(), Tokenizer: testenv.SampleTokenizer(), SLO: mustSLO(t, slo), Sim: sc, Stderr: &stderr,
		CostPerHour: 2, GPUs: 1}
	res, err := Concurrency(context.Background(), cfg, ConcurrencyOptions{Levels: []int{1, 2, 4, 8, 16, 32}, TargetPct: 95})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var table bytes.Buffer
	WriteConcurrencyTable(&table, res)
	t.Logf("\n%s", table.String())
	if res.Knee != 8 {
		t.Fatalf("knee at concurrency %d, want 8 (the simulator's batch limit)", res.Knee)
	}
	last := res.Points[len(res.Points)-1]
	if last.Concurrency != 16 || last.Holds || !strings.Contains(last.Why, "ttft p95") {
		t.Fatalf("the sweep must stop at 16, the first level past the batch limit, on TTFT: got %d (holds %v, %q)", last.Concurrency, last.Holds, last.Why)
	}
	// Throughput rises to the batch limit and no further.
	tok := map[int]float64{}
	for _, p := range res.Points {
		tok[p.Concurrency] = p.Summary.Throughput.OutputTokS
		if p.Summary.Requests.OK != 48 || p.Summary.Requests.Warmup != int64(p.Concurrency) {
			t.Errorf("concurrency %d: %d ok of 48, %d warm-up (want one per slot)", p.Concurrency, p.Summary.Requests.OK, p.Summary.Requests.Warmup)
		}
	}
	if tok[8] < 3*tok[1] || tok[16] > 1.3*tok[8] {
		t.Errorf("output tok/s %v: want a rise to 8 and a plateau past it", tok)
	}
	// The knee is priced: $2/h on one GPU at the knee's output rate.
	want, err := CostAtKnee(2, 1, tok[8])
	if err != nil {
		t.Fatal(err)
	}
	if res.KneeCost == nil || res.KneeCost.PerMOutputTokens != want.PerMOutputTokens {
		t.Errorf("cost at the knee %+v, want %+v", res.KneeCost, want)
	}
	// One request at a time is sent in trace order, each after the previous one answered.
	rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "concurrency-1", "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var measured []results.Row
	for _, r := range rows {
		if !r.Warmup {
			measured = append(measured, r)
		}
	}
	sort.Slice(measured, func(i, j int) bool { return measured[i].SentNS < measured[j].SentNS })
	for i := 1; i < len(measured); i++ {
		a, b := measured[i-1], measured[i]
		if b.RequestID != strconv.Itoa(i) || b.SentNS < a.DoneNS {
			t.Fatalf("concurrency 1: the %dth request sent is %s (sent at %d ns), after %s (answered at %d ns): want trace order, each after the previous answer", i+1, b.RequestID, b.SentNS, a.RequestID, a.DoneNS)
		}
	}
	// sweep.json says which sweep it is; sweep.html has the two-axis plot with SLO and knee.
	var back ConcurrencyResult
	b, err := os.ReadFile(filepath.Join(cfg.Out, File))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Mode != "concurrency" || back.Knee != 8 || len(back.Points) != 5 {
		t.Fatalf("sweep.json: %v, mode %q knee %d, %d points", err, back.Mode, back.Knee, len(back.Points))
	}
	page, err := os.ReadFile(filepath.Join(cfg.Out, PageFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(left)", "(right)", "SLO " + strings.Replace(strings.TrimSuffix(slo, "ms"), "=", " ", 1) + " ms", "knee 8", "Knee: concurrency 8", "per million output tokens"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("sweep.html lacks %q", want)
		}
	}
	if n := strings.Count(string(page), "<svg"); n != 4 {
		t.Errorf("sweep.html has %d plots, want 4", n)
	}
}

func TestSweepConcurrencyRejects(t *testing.T) {
	cfg := runner.Config{Out: t.TempDir(), SLO: mustSLO(t, "ttft=50ms"), Stderr: &bytes.Buffer{}}
	for _, tc := range []struct {
		o    ConcurrencyOptions
		slo  string
		want string
	}{
		{ConcurrencyOptions{Levels: []int{1, 2}, TargetPct: 95}, "", "--slo"},
		{ConcurrencyOptions{Levels: []int{2, 1}, TargetPct: 95}, "ttft=50ms", "increasing"},
		{ConcurrencyOptions{Levels: []int{0, 1}, TargetPct: 95}, "ttft=50ms", "positive"},
		{ConcurrencyOptions{Levels: []int{1}, TargetPct: 97}, "ttft=50ms", "--target 97"},
		{ConcurrencyOptions{TargetPct: 95}, "ttft=50ms", "at least one level"},
	} {
		c := cfg
		c.SLO = mustSLO(t, tc.slo)
		if _, err := Concurrency(context.Background(), c, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v slo %q: %v, want an error naming %s", tc.o, tc.slo, err, tc.want)
		}
	}
}

// mustSLO parses text as replay's --slo does.
func mustSLO(t *testing.T, text string) analysis.SLO {
	t.Helper()
	slo, err := analysis.ParseSLO(text)
	if err != nil {
		t.Fatalf("slo %q: %v", text, err)
	}
	return slo
}
