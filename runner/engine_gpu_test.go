package runner

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runload"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
)

// TestEngineGPUPlots: a loopback DCGM exporter (the exporter's own page, its power rising with
// every scrape) beside the engine, and a second one: report.html plots utilization, memory,
// power and SM clock per GPU, a line for each of the four GPUs, right after the endpoint's own
// series and before the errors (one line here: no request failed); the table stays.
func TestEngineGPUPlots(t *testing.T) {
	url := serveFake(t, vllmEngine(true, false))
	var scrapes atomic.Int64
	rising := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		n := scrapes.Add(1)
		fmt.Fprint(w, strings.Replace(dcgmExporterPage, "} 300\n", fmt.Sprintf("} %d\n", 300+10*n), 1))
	}
	page := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, dcgmExporterPage)
	}
	dcgm1, dcgm2 := serveFake(t, http.HandlerFunc(rising)), serveFake(t, http.HandlerFunc(page))
	_, out, stderr := engineRun(t, url, 6, func(c *Config) {
		c.MetricsURL, c.GPUMetricsURLs = "none", []string{dcgm1 + "/metrics", dcgm2 + "/metrics"}
	})
	rep := readFile(t, filepath.Join(out, "report.html"))
	if !strings.Contains(rep, `<h2 id="gpus">GPUs</h2>`) {
		t.Errorf("report.html lost the GPU table\n%s", stderr)
	}
	at := map[string]int{}
	for _, id := range []string{"inflight-time", "gpu-util", "gpu-memory", "gpu-power", "gpu-sm-clock", "errors"} {
		i := strings.Index(rep, ` id="`+id+`"`) // a plot's heading, or the errors' one line when none failed
		if i < 0 {
			t.Fatalf("report.html has no %s plot\n%s", id, stderr)
		}
		at[id] = i
	}
	if !(at["inflight-time"] < at["gpu-util"] && at["gpu-util"] < at["gpu-sm-clock"] && at["gpu-sm-clock"] < at["errors"]) {
		t.Errorf("plot order %v: want the GPUs after in-flight, before errors", at)
	}
	power := rep[at["gpu-power"]:at["gpu-sm-clock"]]
	for _, legend := range []string{">GPU 0<", ">GPU 1<", ">GPU 2/0<", ">GPU 2/1<"} {
		if !strings.Contains(power, legend) {
			t.Errorf("the power plot has no line %s", legend)
		}
	}
	if n := scrapes.Load(); n < 2 || !strings.Contains(power, "GPU power per GPU") {
		t.Errorf("%d scrapes; power plot %.200s", n, power)
	}
	// `replay report` reads the series back from gpu_metrics*.jsonl and plots them the same.
	m, info, err := runload.LoadDir(out, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.WriteRunFiles(out, m, info); err != nil {
		t.Fatal(err)
	}
	again := readFile(t, filepath.Join(out, "report.html"))
	for _, id := range []string{"gpu-util", "gpu-memory", "gpu-power", "gpu-sm-clock"} {
		if !strings.Contains(again, `<h2 id="`+id+`">`) {
			t.Errorf("the rebuilt report.html has no %s plot", id)
		}
	}
	if i, j := strings.Index(again, `<h2 id="gpu-power">`), strings.Index(again, `<h2 id="gpu-sm-clock">`); i < 0 || j < i ||
		!strings.Contains(again[i:j], ">GPU 2/1<") {
		t.Error("the rebuilt power plot lost the second exporter's GPU 1")
	}
}

// TestEngineGPUPaired: a paired run scrapes the GPU exporters as a single run does, into each
// endpoint's folder, and each endpoint's summary has the exporter's GPUs.
func TestEngineGPUPaired(t *testing.T) {
	urls := startSims(t, sim.DefaultConfig(), sim.DefaultConfig())
	dcgm := serveFake(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, dcgmExporterPage)
	}))
	out := t.TempDir()
	var stderr lockedBuffer
	_, err := Run(context.Background(), Config{Trace: testenv.PairedTrace(t, 20, 20), Out: out, Tokenizer: testenv.SampleTokenizer(),
		Endpoints:  []Endpoint{{Label: "a", URL: urls[0], Model: "replay-sim"}, {Label: "b", URL: urls[1], Model: "replay-sim"}},
		MetricsURL: "none", GPUMetricsURLs: []string{dcgm + "/metrics"}, MetricsInterval: 20 * time.Millisecond,
		Schedule: scheduler.Config{Speed: 4}, MaxLateness: -1, MinExact: anyLengths, ClientLimit: 100, Stdout: io.Discard, Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, label := range []string{"a", "b"} {
		if lines := strings.Count(readFile(t, filepath.Join(out, label, runfolder.GPUMetrics)), "\n"); lines == 0 {
			t.Errorf("%s: no GPU scrapes in %s", label, runfolder.GPUMetrics)
		}
		s, err := analysis.ReadSummary(filepath.Join(out, label, runfolder.Summary))
		if err != nil {
			t.Fatal(err)
		}
		if s.Run.Engine == nil || len(s.Run.Engine.GPUs) == 0 {
			t.Errorf("%s: the summary has no GPUs: %+v", label, s.Run.Engine)
		}
	}
}
