package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/routing"
	"github.com/llm-replay/replay/scheduler"
)

// TestPriorityMapQueues: --priority-map gives each request a priority by its logged model,
// sent as vLLM's priority field; the simulator, one request at a time, admits the lower value
// first, so under a queue the interactive model's requests wait less than the batch one's,
// and the per-class figures show it. Without the map the two wait alike.
func TestPriorityMapQueues(t *testing.T) {
	var b bytes.Buffer
	for i := range 60 {
		model := "batch"
		if i%2 == 0 {
			model = "interactive"
		}
		line, _ := json.Marshal(map[string]any{"timestamp": float64(i) * 0.002,
			"request":  map[string]any{"model": model, "stream": true, "max_tokens": 8, "messages": []any{map[string]any{"role": "user", "content": fmt.Sprintf("question %d about the weather", i)}}},
			"response": map[string]any{"usage": map[string]any{"completion_tokens": 8}}})
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "tiers.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	wait := func(priorities string) (inter, batch float64) {
		pm, err := routing.ParsePriorityMap(priorities)
		if err != nil {
			t.Fatal(err)
		}
		by, _ := routing.ParseClassBy("model")
		sc := roomySim(2 * time.Millisecond)
		sc.MaxBatch = 1
		var stderr bytes.Buffer
		cfg := Config{Trace: path, Ingest: ingest.Options{Format: ingest.FormatOpenAILog}, Out: t.TempDir(),
			Tokenizer: testenv.SampleTokenizer(), Schedule: scheduler.Config{Speed: 1}, Sim: sc,
			Routing: Routing{PriorityMap: pm, ClassBy: by}, Stderr: &stderr, Stdout: io.Discard, MaxLateness: -1}
		sum, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		return sum.SLOClasses["interactive"].TTFT.P50, sum.SLOClasses["batch"].TTFT.P50
	}
	i, bt := wait("model=interactive:0,model=*:10")
	if !(i*2 < bt) {
		t.Errorf("with priorities: TTFT p50 interactive %.1f ms, batch %.1f ms: want interactive well ahead", i, bt)
	}
	i0, b0 := wait("")
	if i0*1.5 < b0 || b0*1.5 < i0 {
		t.Errorf("without priorities: TTFT p50 interactive %.1f ms, batch %.1f ms: want them alike", i0, b0)
	}
	t.Logf("TTFT p50 with priorities: interactive %.1f ms, batch %.1f ms; without: %.1f, %.1f", i, bt, i0, b0)
}
