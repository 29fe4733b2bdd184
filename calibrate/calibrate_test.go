package calibrate

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
)

// calibrationSim is a simulator whose single-request TTFT is known: one step of 5 ms plus
// 100 µs per uncached prompt token (2% jitter on each step, its default), so TTFT(p) =
// 5 ms + 0.1 ms x p plus this machine's HTTP overhead.
func calibrationSim() sim.Config {
	sc := sim.DefaultConfig()
	sc.StepBase, sc.PrefillPerToken = 5*time.Millisecond, 100*time.Microsecond
	return sc
}

// TestCalibrateSimulator calibrates against the simulator and checks the fit against its cost
// model and against held-out requests: a linear curve whose slope is the simulator's 0.1 ms per
// token within 10%, cached repeats measured apart (the simulator reports their cached tokens
// and they are far faster), and single requests at prompt lengths the grid never had,
// measured in a second calibration, each length within 10% of what the first one's curve
// predicts.
func TestCalibrateSimulator(t *testing.T) {
	var stderr bytes.Buffer
	out := t.TempDir()
	cfg := runner.Config{Out: out, Tokenizer: testenv.SampleTokenizer(), Sim: calibrationSim(), Stderr: &stderr}
	c, err := Run(context.Background(), cfg, Options{MaxPromptTokens: 1024, Points: 5, OutputTokens: []int{4, 16}, Repeats: 2})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var sum bytes.Buffer
	WriteSummary(&sum, c)
	t.Logf("\n%s", sum.String())
	if c.TTFT.Model != analysis.ModelLinear || math.Abs(c.TTFT.Coef[1]-0.1)/0.1 > 0.1 {
		t.Errorf("TTFT curve %s: want linear with a slope of 0.1 ms a token", c.TTFT)
	}
	uncached, cached := 0, 0
	for _, p := range c.Points {
		switch p.Kind {
		case analysis.PointUncached:
			uncached++
			if p.CachedTokens != 0 {
				t.Errorf("a fresh prompt of %d tokens had %d cached", p.PromptTokens, p.CachedTokens)
			}
		case analysis.PointCached:
			cached++
			if p.CachedTokens < p.PromptTokens-16 || p.TTFTMS > c.PredictTTFTMS(p.PromptTokens)/2 {
				t.Errorf("cached repeat of %d tokens: %d cached, TTFT %.1f ms (fresh: %.1f)", p.PromptTokens, p.CachedTokens, p.TTFTMS, c.PredictTTFTMS(p.PromptTokens))
			}
		}
	}
	if uncached != 20 || cached != 10 || c.TTFTCached == nil || c.TPOT == nil {
		t.Fatalf("%d fresh and %d cached points (want 20 and 10), cached fit %v, TPOT fit %v", uncached, cached, c.TTFTCached, c.TPOT)
	}
	// TPOT alone is one 5 ms step per token plus 50 µs for the sequence and 50 ns per KV token.
	if tp := c.TPOT.At(500); math.Abs(tp-5.08)/5.08 > 0.1 {
		t.Errorf("TPOT at 500 tokens of context %.2f ms, want about 5.08", tp)
	}
	back, err := analysis.ReadCalibration(filepath.Join(out, runfolder.Calibration))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, PageFile))
	if err != nil || strings.Count(string(page), "<svg") != 3 || !strings.Contains(string(page), "linear least squares") {
		t.Errorf("calibration.html: %v, %d plots", err, strings.Count(string(page), "<svg"))
	}

	held := cfg
	held.Out = t.TempDir()
	h, err := Run(context.Background(), held, Options{PromptTokens: []int{200, 333, 520, 700, 950}, OutputTokens: []int{4}, Repeats: 3, NoCached: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	// Each held-out length is judged by the median of its three measurements, so that one
	// scheduling hiccup of this shared machine is not taken for the curve's error.
	byLen := map[int][]float64{}
	for _, p := range h.Points {
		byLen[p.UncachedTokens] = append(byLen[p.UncachedTokens], p.TTFTMS)
	}
	if len(byLen) != 5 {
		t.Fatalf("%d held-out lengths, want 5", len(byLen))
	}
	for n, ms := range byLen {
		sort.Float64s(ms)
		got, want := ms[len(ms)/2], back.PredictTTFTMS(n)
		if e := math.Abs(got-want) / want; e > 0.1 {
			t.Errorf("held out: %d-token prompt took %.2f ms (median of %v), the curve predicts %.2f ms (%.0f%% off)", n, got, ms, want, 100*e)
		} else {
			t.Logf("held out: %d tokens %.2f ms, predicted %.2f ms (%.1f%% off)", n, got, want, 100*e)
		}
	}
}

func TestCalibrateRejects(t *testing.T) {
	cfg := runner.Config{Out: t.TempDir(), Tokenizer: testenv.SampleTokenizer(), Stderr: &bytes.Buffer{}}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Points: 1}, "--points 1"},
		{Options{MaxPromptTokens: -5}, "--max-prompt-tokens -5"},
		{Options{PromptTokens: []int{100, 100}}, "distinct"},
		{Options{OutputTokens: []int{0}}, "--output-tokens"},
		{Options{MaxPromptTokens: 16, Points: 4}, "too short"},
	} {
		if _, err := Run(context.Background(), cfg, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %s", tc.o, err, tc.want)
		}
	}
}
