package cachestudy

import (
	"maps"
	"strings"
	"testing"
)

// TestEngineCapacity reads vllm:cache_config_info's labels as vLLM serves them (every
// CacheConfig field a label, the engine's index among them; scrape.InfoLabels reads them off
// the page), and refuses what gives no one cache's capacity.
func TestEngineCapacity(t *testing.T) {
	vllm := map[string]string{"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "True", "engine": "0",
		"gpu_memory_utilization": "0.9", "num_cpu_blocks": "None", "num_gpu_blocks": "27000", "prefix_caching_hash_algo": "sha256"}
	with := func(k, v string) map[string]string {
		m := maps.Clone(vllm)
		m[k] = v
		return m
	}
	for _, c := range []struct {
		name   string
		series []map[string]string
		tokens int64
		err    string
	}{
		{"vllm", []map[string]string{vllm}, 27000 * 16, ""},
		{"not profiled", []map[string]string{with("num_gpu_blocks", "None")}, 0, `num_gpu_blocks="None"`},
		{"two engines", []map[string]string{vllm, with("engine", "1")}, 0, "2 series"},
		{"no series", []map[string]string{}, 0, "0 series"},
		{"no caching", []map[string]string{with("enable_prefix_caching", "False")}, 0, "enable_prefix_caching=False"},
	} {
		got, err := capacityOf(c.series, "http://127.0.0.1:8000/metrics")
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %+v, %v: want an error saying %s", c.name, got, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case got == nil || got.Tokens != c.tokens || got.BlockSize != 16 || got.Blocks != 27000:
			t.Errorf("%s: %+v, want %d tokens", c.name, got, c.tokens)
		}
	}
}
