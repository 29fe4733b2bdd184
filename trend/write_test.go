package trend

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/trace"
)

// TestTrendFlagsTheSlowRun replays one trace six times against the simulator, the fourth time
// with its prefill three times slower (240 µs a token instead of 80: about 67 ms a 256-token
// prompt instead of 26, longer than the 60 ms between arrivals, so requests queue and TTFT p50
// is some 245 ms against 27), and checks replay trend flags that run and no other. Sixty
// requests a run keep a run's p95 off its two slowest requests, which one scheduling hiccup of
// this shared machine can move.
func TestTrendFlagsTheSlowRun(t *testing.T) {
	tr := writeGapTrace(t, 60, 60*time.Millisecond, 256, 4)
	root := t.TempDir()
	var stderr bytes.Buffer
	var dirs []string
	for i := range 6 {
		sc := sim.DefaultConfig()
		sc.StepBase, sc.PrefillPerToken, sc.Jitter = 5*time.Millisecond, 80*time.Microsecond, 0
		if i == 3 {
			sc.PrefillPerToken = 240 * time.Microsecond
		}
		dir := filepath.Join(root, fmt.Sprintf("run-%d", i))
		cfg := runner.Config{Trace: tr, Out: dir, Tokenizer: testenv.SampleTokenizer(), Sim: sc, SLO: analysis.SLO{TTFT: 100 * time.Millisecond}, Stderr: &stderr, Stdout: io.Discard}
		if _, err := runner.Run(context.Background(), cfg); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, stderr.String())
		}
		dirs = append(dirs, dir)
	}
	out := filepath.Join(root, "trend")
	// Given out of order: the trend orders runs by their start.
	tt, err := Write(append(dirs[3:], dirs[:3]...), out, DefaultK, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	WriteTable(&table, tt)
	t.Logf("\n%s", table.String())
	if len(tt.Flagged) != 1 || tt.Flagged[0] != dirs[3] {
		t.Fatalf("flagged %v, want only %s", tt.Flagged, dirs[3])
	}
	if tt.Runs[0].Dir != dirs[0] || tt.Runs[3].Dir != dirs[3] {
		t.Errorf("runs not in start order: %s first", tt.Runs[0].Dir)
	}
	page, err := os.ReadFile(filepath.Join(out, PageFile))
	if err != nil || strings.Count(string(page), "<svg") != 3 || !strings.Contains(string(page), "1 run(s) outside the band") {
		t.Errorf("trend.html: %v, %d plots", err, strings.Count(string(page), "<svg"))
	}
	if _, err := os.Stat(filepath.Join(out, File)); err != nil {
		t.Error(err)
	}
	if _, err := Write([]string{dirs[0], root}, out, 3, &stderr); err == nil || !strings.Contains(err.Error(), root) {
		t.Errorf("a folder without summary.json: %v", err)
	}
}

// writeGapTrace writes n requests gap apart, each of prompt and output tokens, as a normalized
// trace.
func writeGapTrace(t *testing.T, n int, gap time.Duration, prompt, output int) string {
	t.Helper()
	recs := make([]trace.Record, n)
	for i := range recs {
		recs[i] = trace.Record{Timestamp: time.Duration(i) * gap, PromptTokens: prompt, OutputTokens: output, Line: int64(i + 1)}
	}
	p := filepath.Join(t.TempDir(), "gap.parquet")
	if err := trace.WriteFile(p, recs); err != nil {
		t.Fatal(err)
	}
	return p
}
