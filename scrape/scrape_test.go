package scrape

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/sim"
)

// vllmPage is the shape vLLM's Python Prometheus client writes: counter families named with
// _total, _created gauges beside them, one label set per engine.
const vllmPage = `# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} %d.0
vllm:prefix_cache_queries_total{engine="1",model_name="m"} 100.0
# HELP vllm:prefix_cache_queries_created Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_created gauge
vllm:prefix_cache_queries_created{engine="0",model_name="m"} 1.7e+09
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} %d.0
vllm:prefix_cache_hits_total{engine="1",model_name="m"} 0.0
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_running{engine="1",model_name="m"} 2.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 1.0
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.5
vllm:gpu_cache_usage_perc{engine="1",model_name="m"} 0.25
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} 4.0
vllm:time_to_first_token_seconds_sum{model_name="m"} 1.0
vllm:time_to_first_token_seconds_count{model_name="m"} 4.0
`

func TestParseVLLMText(t *testing.T) {
	got, _, err := parse(strings.NewReader(fmt.Sprintf(vllmPage, 900, 300)), expfmt.FmtText, VLLM)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		results.PrefixCacheQueriedTokens: 1000, results.PrefixCacheHitTokens: 300, // summed over engines
		results.RequestsRunning: 5, results.RequestsWaiting: 1,
		results.KVCacheUsage: 0.375, // the older name, averaged over engines
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("parsed %v, want %v", got, want)
	}
}

func TestParseOpenMetrics(t *testing.T) {
	page := "# TYPE vllm:prefix_cache_hits counter\nvllm:prefix_cache_hits_total{model_name=\"m\"} 7\n" +
		"# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{model_name=\"m\"} 0.1\n# EOF\n"
	got, _, err := parse(strings.NewReader(page), expfmt.FmtOpenMetrics_1_0_0, VLLM)
	if err != nil {
		t.Fatal(err)
	}
	if got[results.PrefixCacheHitTokens] != 7 || got[results.KVCacheUsage] != 0.1 || len(got) != 2 {
		t.Fatalf("parsed %v", got)
	}
}

func TestParseGarbage(t *testing.T) {
	if _, _, err := parse(strings.NewReader("<html>not metrics</html>\n"), expfmt.FmtText, VLLM); err == nil {
		t.Fatal("an HTML page parsed as metrics")
	}
}

// counterServer serves vllmPage with counters the test moves.
type counterServer struct {
	mu            sync.Mutex
	queries, hits int
}

func (c *counterServer) set(q, h int) {
	c.mu.Lock()
	c.queries, c.hits = q, h
	c.mu.Unlock()
}

func (c *counterServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	fmt.Fprintf(w, vllmPage, c.queries, c.hits)
}

// TestIncreaseAcrossReset moves the counters between scrapes, including a drop (a server
// restart), and checks the increase is summed as Prometheus's increase() would.
func TestIncreaseAcrossReset(t *testing.T) {
	cs := &counterServer{}
	cs.set(900, 0) // with engine 1's fixed 100 queries: 1000
	srv := httptest.NewServer(cs)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "server_metrics.jsonl")
	s, err := Start(context.Background(), Config{URL: srv.URL + "/metrics", Interval: time.Hour, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	cs.set(1900, 400) // +1000 queries, +400 hits
	s.scrape()
	cs.set(200, 50) // restart: engine 0 back to 200 queries (total 300 < 2000), 50 hits (< 400)
	s.scrape()
	res := s.Stop() // a last scrape of the same values adds nothing
	if res.Scrapes != 4 || res.Failures != 0 {
		t.Fatalf("%d scrapes, %d failures, want 4 and 0", res.Scrapes, res.Failures)
	}
	if q, h := res.Increase[results.PrefixCacheQueriedTokens], res.Increase[results.PrefixCacheHitTokens]; q != 1000+300 || h != 400+50 {
		t.Fatalf("increase: queries %v hits %v, want 1300 and 450", q, h)
	}
	lines := readLines(t, path)
	if len(lines) != 4 {
		t.Fatalf("%d lines in %s, want 4", len(lines), path)
	}
	if lines[1][results.PrefixCacheQueriedTokens] != 2000.0 || lines[1][results.RequestsRunning] != 5.0 || lines[1]["t_s"] == nil || lines[1]["unix_ms"] == nil {
		t.Fatalf("line 2: %v", lines[1])
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

// TestNoMetricsPage is an endpoint without /metrics (Ollama's, for one): failures are counted
// and announced once, no file is left behind and nothing is an error.
func TestNoMetricsPage(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "server_metrics.jsonl")
	var warn bytes.Buffer
	s, err := Start(context.Background(), Config{URL: srv.URL + "/metrics", Interval: 10 * time.Millisecond, Path: path, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	res := s.Stop()
	if res.Scrapes != 0 || res.Failures < 3 || !strings.Contains(res.FirstError, "HTTP 404") {
		t.Fatalf("%+v", res)
	}
	if n := strings.Count(warn.String(), "\n"); n != 1 || !strings.Contains(warn.String(), "HTTP 404") {
		t.Fatalf("warned %d times: %q", n, warn.String())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s exists after no successful scrape (%v)", path, err)
	}
	if len(res.Increase) != 0 {
		t.Fatalf("increase %v from no data", res.Increase)
	}
}

func TestRefusedConnection(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/metrics"
	srv.Close() // nothing listens there now
	s, err := Start(context.Background(), Config{URL: url, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if res := s.Stop(); res.Failures != 2 || res.Scrapes != 0 {
		t.Fatalf("%+v", res)
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []Config{{}, {URL: "http://[::1"}, {URL: "http://127.0.0.1/metrics", Interval: -time.Second}} {
		if _, err := Start(context.Background(), c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestSimulatorMetrics scrapes the built-in simulator, which serves every series package
// results names, and vLLM's generation-token counter.
func TestSimulatorMetrics(t *testing.T) {
	url, stop, err := sim.Listen(context.Background(), "127.0.0.1:0", sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	s, err := Start(context.Background(), Config{URL: url + "/metrics", Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	res := s.Stop()
	if res.Scrapes != 2 || res.Failures != 0 {
		t.Fatalf("%+v", res)
	}
	for _, name := range []string{results.PrefixCacheQueriedTokens, results.PrefixCacheHitTokens, results.RequestsRunning,
		results.RequestsWaiting, results.KVCacheUsage, results.GenerationTokens} {
		if _, ok := res.Samples[0].Values[name]; !ok {
			t.Errorf("%s missing from the simulator's page: %v", name, res.Samples[0].Values)
		}
	}
}

// TestWritesServerMetricsFile: the scraper's file holds its samples as results reads them.
func TestWritesServerMetricsFile(t *testing.T) {
	cs := &counterServer{}
	cs.set(5, 1)
	srv := httptest.NewServer(cs)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), runfolder.ServerMetrics)
	s, err := Start(context.Background(), Config{URL: srv.URL, Interval: time.Hour, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	res := s.Stop()
	got, err := results.ReadServerMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || fmt.Sprint(got[1].Values) != fmt.Sprint(res.Samples[1].Values) || got[1].Time.UnixMilli() != res.Samples[1].Time.UnixMilli() {
		t.Fatalf("read back %+v, wrote %+v", got, res.Samples)
	}
}
