package sim

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	openai "github.com/sashabaranov/go-openai"
)

// usageOf returns the usage of the last event of a stream.
func usageOf(t *testing.T, res sseResult) openai.Usage {
	t.Helper()
	if res.status != 200 || res.err != nil || len(res.events) == 0 {
		t.Fatalf("status %d err %v body %s", res.status, res.err, res.body)
	}
	var c openai.CompletionResponse
	if err := json.Unmarshal(res.events[len(res.events)-1], &c); err != nil || c.Usage == nil {
		t.Fatalf("no usage in %s (%v)", res.events[len(res.events)-1], err)
	}
	return *c.Usage
}

// scrape parses /metrics with Prometheus' own text parser and returns each family's first value.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		m := f.GetMetric()[0]
		if got := m.GetLabel()[len(m.GetLabel())-1]; got.GetName() != "model_name" || got.GetValue() != "replay-sim" {
			t.Errorf("%s: label %v", name, m.GetLabel())
		}
		switch {
		case m.Gauge != nil:
			out[name] = m.GetGauge().GetValue()
		case m.Counter != nil:
			out[name] = m.GetCounter().GetValue()
		}
	}
	return out
}

// TestSharedPrefixLowersTTFT sends a warm-up prompt, then a cold prompt and a prompt sharing the
// warm-up's long prefix, all of the same length, with a deliberately large prefill cost.
func TestSharedPrefixLowersTTFT(t *testing.T) {
	for _, form := range []string{"ids", "text"} {
		cfg := fastConfig()
		cfg.PrefillPerToken = time.Millisecond
		_, url := startServer(t, cfg)
		const n = 400 // tokens; 25 blocks of 16
		mk := func(prefixFrom, suffixFrom int) any {
			p := append(ids(prefixFrom, n-16), ids(suffixFrom, 16)...)
			if form == "ids" {
				return p
			}
			b := make([]byte, 0, 4*n)
			for _, id := range p {
				b = append(b, byte('a'+id%26), byte('a'+id/26%26), byte('a'+id/676%26), ' ')
			}
			return string(b) // 4 bytes a token under ApproxCounter
		}
		send := func(prompt any) sseResult {
			return post(t, url, "/v1/completions", map[string]any{"prompt": prompt, "max_tokens": 3, "stream": true,
				"stream_options": map[string]bool{"include_usage": true}})
		}
		before := scrape(t, url)
		warm := send(mk(1000, 50000))
		cold := send(mk(20000, 60000))
		hot := send(mk(1000, 70000))
		after := scrape(t, url)
		uw, uc, uh := usageOf(t, warm), usageOf(t, cold), usageOf(t, hot)
		if uw.PromptTokens != n || uc.PromptTokens != n || uh.PromptTokens != n {
			t.Fatalf("%s: prompt tokens %d %d %d, want %d", form, uw.PromptTokens, uc.PromptTokens, uh.PromptTokens, n)
		}
		if uc.PromptTokensDetails.CachedTokens != 0 || uh.PromptTokensDetails.CachedTokens != n-16 {
			t.Errorf("%s: cached tokens cold %d hot %d, want 0 and %d", form, uc.PromptTokensDetails.CachedTokens, uh.PromptTokensDetails.CachedTokens, n-16)
		}
		t.Logf("%s: TTFT cold %v, shared prefix %v", form, cold.ttft, hot.ttft)
		// Cold: 400 tokens * 1 ms = 400 ms of prefill; hot: 16 tokens = 16 ms.
		if cold.ttft < 400*time.Millisecond || hot.ttft > cold.ttft/2 {
			t.Errorf("%s: TTFT cold %v, shared prefix %v: want cold >= 400ms and shared < cold/2", form, cold.ttft, hot.ttft)
		}
		dq := after["vllm:prefix_cache_queries_total"] - before["vllm:prefix_cache_queries_total"]
		dh := after["vllm:prefix_cache_hits_total"] - before["vllm:prefix_cache_hits_total"]
		if dq != 3*n || dh != n-16 {
			t.Errorf("%s: prefix cache counters moved by queries %v hits %v, want %d and %d", form, dq, dh, 3*n, n-16)
		}
		if after["vllm:request_success_total"] != 3 || after["vllm:generation_tokens_total"] != 9 || after["vllm:prompt_tokens_total"] != 3*n {
			t.Errorf("%s: counters %v", form, after)
		}
		for _, g := range []string{"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"} {
			if v, ok := after[g]; !ok || v != 0 {
				t.Errorf("%s: gauge %s = %v (present %v), want 0 when idle", form, g, v, ok)
			}
		}
	}
}

func TestQueueFull429(t *testing.T) {
	cfg := fastConfig()
	cfg.MaxBatch = 1
	cfg.MaxWaiting = 1
	cfg.StepBase = 5 * time.Millisecond
	_, url := startServer(t, cfg)
	long := map[string]any{"prompt": "a", "max_tokens": 200, "stream": true} // about 1 s
	first := make(chan sseResult, 2)
	go func() { first <- post(t, url, "/v1/completions", long) }()
	waitFor(t, url, "vllm:num_requests_running", 1)
	go func() { first <- post(t, url, "/v1/completions", long) }()
	waitFor(t, url, "vllm:num_requests_waiting", 1)
	m := scrape(t, url)
	if m["vllm:kv_cache_usage_perc"] <= 0 {
		t.Errorf("KV usage %v with a running request", m["vllm:kv_cache_usage_perc"])
	}
	res := post(t, url, "/v1/completions", long)
	var e struct {
		Error struct{ Message, Type string } `json:"error"`
	}
	if res.status != http.StatusTooManyRequests || json.Unmarshal(res.body, &e) != nil || e.Error.Type != "rate_limit_exceeded" {
		t.Fatalf("third request: status %d body %s, want 429 with an OpenAI error", res.status, res.body)
	}
	for range 2 {
		if r := <-first; !r.done || len(r.events) != 200 {
			t.Errorf("queued request: done %v, %d events", r.done, len(r.events))
		}
	}
}

// waitFor polls /metrics until gauge reaches v.
func waitFor(t *testing.T, url, gauge string, v float64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if scrape(t, url)[gauge] == v {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s never reached %v", gauge, v)
}

func TestClientGoneFreesSequence(t *testing.T) {
	cfg := fastConfig()
	_, url := startServer(t, cfg)
	req, _ := http.NewRequest("POST", url+"/v1/completions", jsonBody(map[string]any{"prompt": "a", "max_tokens": 100000, "stream": true}))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, url, "vllm:num_requests_running", 1)
	resp.Body.Close()
	waitFor(t, url, "vllm:num_requests_running", 0)
	if u := scrape(t, url)["vllm:kv_cache_usage_perc"]; u != 0 {
		t.Errorf("KV usage %v after the client left", u)
	}
}
