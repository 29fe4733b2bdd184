package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/runfolder"
)

// TestServerMetricsFile: samples written read back (t_s to the microsecond, the time to the
// millisecond); a cut last line is left out, any other bad line names the file and line.
func TestServerMetricsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), runfolder.ServerMetrics)
	w, err := CreateServerMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(1_767_225_600_123)
	wrote := []ServerSample{
		{OffsetS: 0, Time: at, Values: map[string]float64{PrefixCacheQueriedTokens: 5, PrefixCacheHitTokens: 1}},
		{OffsetS: 1.0000004, Time: at.Add(time.Second), Values: map[string]float64{RequestsRunning: 3, KVCacheUsage: 0.25}},
	}
	for _, s := range wrote {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadServerMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].OffsetS != 1 || fmt.Sprint(got[1].Values) != fmt.Sprint(wrote[1].Values) || !got[1].Time.Equal(wrote[1].Time) {
		t.Fatalf("read back %+v, wrote %+v", got, wrote)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"t_s":3.5,"vllm:num_req`)
	f.Close()
	if got, err := ReadServerMetrics(path); err != nil || len(got) != 2 {
		t.Fatalf("cut last line: %d samples, %v", len(got), err)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"t_s\":1}\n{\"t_s\":\"x\"}\n{\"t_s\":2}\n"), 0o644)
	if _, err := ReadServerMetrics(bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Fatalf("bad line: %v", err)
	}
}

// TestOlderKeysReadAsNeutral: a file written when every series was kept under vLLM's names
// (an SGLang run's too) reads under today's neutral keys; engines' own names stay as they are.
func TestOlderKeysReadAsNeutral(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server_metrics.jsonl")
	line := `{"t_s":1.5,"unix_ms":1700000000000,"vllm:num_requests_running":3,"vllm:prefix_cache_queries_total":100,"vllm:prefix_cache_hits_total":40,"vllm:kv_cache_usage_perc":0.5,"sglang:num_retracted_reqs":2}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadServerMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{RequestsRunning: 3, PrefixCacheQueriedTokens: 100, PrefixCacheHitTokens: 40, KVCacheUsage: 0.5, "sglang:num_retracted_reqs": 2}
	if len(got) != 1 || fmt.Sprint(got[0].Values) != fmt.Sprint(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
}
