package scrape

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestInfoLabels reads an info metric's labels off a page, one map a series (a data-parallel
// vLLM serves one per engine); a page without it gives nil, a status other than 2xx an error.
func TestInfoLabels(t *testing.T) {
	// As vLLM serves it: every CacheConfig field a label, the engine's index among them.
	const text = `# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",num_cpu_blocks="None",num_gpu_blocks="27000",prefix_caching_hash_algo="sha256"} 1.0
vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="1",gpu_memory_utilization="0.9",num_cpu_blocks="None",num_gpu_blocks="27000",prefix_caching_hash_algo="sha256"} 1.0
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0"} 0.0
`
	for _, c := range []struct {
		name, contentType, page string
		status                  int
		want                    []string // each series' block_size
		err                     string
	}{
		{"text", "text/plain; version=0.0.4", text, 200, []string{"16", "16"}, ""},
		{"one engine", "text/plain; version=0.0.4", "vllm:cache_config_info{block_size=\"32\"} 1\n", 200, []string{"32"}, ""},
		{"absent", "text/plain; version=0.0.4", "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 0\n", 200, nil, ""},
		{"not found", "text/plain", "no", 404, nil, "HTTP 404"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", c.contentType)
			w.WriteHeader(c.status)
			w.Write([]byte(c.page))
		}))
		got, err := InfoLabels(context.Background(), srv.Client(), srv.URL+"/metrics", CacheConfigInfo)
		srv.Close()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, %v: want an error saying %s", c.name, got, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if (got == nil) != (c.want == nil) || len(got) != len(c.want) {
			t.Errorf("%s: %v, want %d series", c.name, got, len(c.want))
			continue
		}
		for i, l := range got {
			if l["block_size"] != c.want[i] {
				t.Errorf("%s: series %d: %v, want block_size %s", c.name, i, l, c.want[i])
			}
		}
	}
}
