package cachestudy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEngineCapacity reads vllm:cache_config_info as vLLM serves it (every CacheConfig field a
// label, the engine's index among them), and refuses what gives no one cache's capacity.
func TestEngineCapacity(t *testing.T) {
	const vllm = `# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",num_cpu_blocks="None",num_gpu_blocks="27000",prefix_caching_hash_algo="sha256"} 1.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 0.0
`
	for _, c := range []struct {
		name, page string
		tokens     int64
		err        string
	}{
		{"vllm", vllm, 27000 * 16, ""},
		{"no info", "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 0\n", 0, ""},
		{"not profiled", strings.Replace(vllm, `num_gpu_blocks="27000"`, `num_gpu_blocks="None"`, 1), 0, "num_gpu_blocks=\"None\""},
		{"two engines", vllm + strings.Replace(strings.SplitN(vllm, "\n", 4)[2], `engine="0"`, `engine="1"`, 1) + "\n", 0, "2 series"},
		{"no caching", strings.Replace(vllm, `enable_prefix_caching="True"`, `enable_prefix_caching="False"`, 1), 0, "enable_prefix_caching=False"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			w.Write([]byte(c.page))
		}))
		got, err := engineCapacity(context.Background(), srv.Client(), srv.URL+"/metrics")
		srv.Close()
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %+v, %v: want an error saying %s", c.name, got, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.tokens == 0 && got != nil, c.tokens > 0 && (got == nil || got.Tokens != c.tokens || got.BlockSize != 16):
			t.Errorf("%s: %+v, want %d tokens", c.name, got, c.tokens)
		}
	}
}
