package sim

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"
)

// embeddingsOf posts an embeddings body and returns the answer, held to the published shapes.
func embeddingsOf(t *testing.T, url string, body map[string]any) (object, [][]float64) {
	t.Helper()
	res := postEvents(t, url, "/v1/embeddings", body)
	if res.status != 200 {
		t.Fatalf("%v: status %d %s", body, res.status, res.body)
	}
	o := decodeObject(t, res.body)
	mustShape(t, "embeddings", embeddingListShape, o)
	mustShape(t, "embeddings usage", embeddingUsage, o.obj("usage"))
	if o.str("object") != "list" || o.obj("usage").num("total_tokens") != o.obj("usage").num("prompt_tokens") {
		t.Errorf("answer %s", res.body)
	}
	var vecs [][]float64
	for i, d := range o.list("data") {
		mustShape(t, "embedding", embeddingShape, d)
		if d.str("object") != "embedding" || d.num("index") != i {
			t.Errorf("data[%d] %v", i, d)
		}
		vecs = append(vecs, vectorOf(t, d["embedding"]))
	}
	return o, vecs
}

// vectorOf reads an embedding: a list of numbers, or the base64 of little-endian float32s.
func vectorOf(t *testing.T, raw json.RawMessage) []float64 {
	t.Helper()
	var v []float64
	if json.Unmarshal(raw, &v) == nil {
		return v
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("embedding %s", raw)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%4 != 0 {
		t.Fatalf("base64 embedding %q: %v", s, err)
	}
	for i := 0; i < len(b); i += 4 {
		v = append(v, float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))))
	}
	return v
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// TestEmbeddings: every input form is counted as a completions prompt is, each input gets a
// unit vector of the asked dimensions (equal inputs equal vectors, base64 the same floats),
// in both modes.
func TestEmbeddings(t *testing.T) {
	for _, zero := range []bool{false, true} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		cfg.EmbeddingDimensions = 64
		_, url := startServer(t, cfg)
		completion := usageOf(t, post(t, url, "/v1/completions", map[string]any{"prompt": "abcdefghij", "max_tokens": 1, "stream": true,
			"stream_options": map[string]bool{"include_usage": true}})).PromptTokens
		cases := []struct {
			input       any
			inputs, tok int
		}{
			{"abcdefghij", 1, completion},
			{[]string{"abcdefghij", "xy", "abcdefghij"}, 3, 2*completion + 1},
			{ids(7, 30), 1, 30},
			{[][]int{ids(1, 5), ids(1, 9)}, 2, 14},
		}
		for _, tc := range cases {
			o, vecs := embeddingsOf(t, url, map[string]any{"model": "emb", "input": tc.input})
			if len(vecs) != tc.inputs || o.obj("usage").num("prompt_tokens") != tc.tok || o.str("model") != "emb" {
				t.Errorf("zero=%v %v: %d vectors, usage %s; want %d and %d tokens", zero, tc.input, len(vecs), o["usage"], tc.inputs, tc.tok)
			}
			for i, v := range vecs {
				if len(v) != 64 || math.Abs(norm(v)-1) > 1e-5 {
					t.Errorf("zero=%v %v: vector %d of %d values, norm %v", zero, tc.input, i, len(v), norm(v))
				}
			}
		}
		_, three := embeddingsOf(t, url, map[string]any{"input": []string{"abcdefghij", "xy", "abcdefghij"}})
		_, b64 := embeddingsOf(t, url, map[string]any{"input": "abcdefghij", "encoding_format": "base64"})
		_, short := embeddingsOf(t, url, map[string]any{"input": "abcdefghij", "dimensions": 8})
		if !equalVec(three[0], three[2]) || equalVec(three[0], three[1]) || !equalVec(three[0], b64[0]) || len(short[0]) != 8 {
			t.Errorf("zero=%v: equal inputs %v, different %v, base64 %v, dimensions %d", zero,
				equalVec(three[0], three[2]), !equalVec(three[0], three[1]), equalVec(three[0], b64[0]), len(short[0]))
		}
	}
}

// equalVec compares vectors at float32 precision (the float answer is float32 in its
// shortest form).
func equalVec(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if float32(a[i]) != float32(b[i]) {
			return false
		}
	}
	return true
}

// TestEmbeddingsPrefillBatched: the inputs of one request are prefilled together, in one step
// when the token budget holds them all (as a batch of prompts is), and count as prompt tokens
// and requests in the vLLM metrics but generate nothing.
func TestEmbeddingsPrefillBatched(t *testing.T) {
	cfg := fastConfig()
	cfg.TokenBudget = 1024
	s, url := startServer(t, cfg)
	inputs := make([][]int, 8)
	for i := range inputs {
		inputs[i] = ids(1000*i+1, 100)
	}
	before := scrape(t, url)
	s.eng.mu.Lock()
	steps := s.eng.core.steps
	s.eng.mu.Unlock()
	o, vecs := embeddingsOf(t, url, map[string]any{"input": inputs})
	s.eng.mu.Lock()
	steps = s.eng.core.steps - steps
	s.eng.mu.Unlock()
	if len(vecs) != 8 || o.obj("usage").num("prompt_tokens") != 800 || steps != 1 {
		t.Errorf("%d vectors, usage %s, %d steps; want 8, 800 tokens, one step", len(vecs), o["usage"], steps)
	}
	after := scrape(t, url)
	for name, want := range map[string]float64{"vllm:prompt_tokens_total": 800, "vllm:generation_tokens_total": 0, "vllm:request_success_total": 8} {
		if got := after[name] - before[name]; got != want {
			t.Errorf("%s rose by %v, want %v", name, got, want)
		}
	}
	// A budget of 300 tokens a step takes ceil(800/300) = 3 steps: chunked prefill as for any prompt.
	cfg.TokenBudget = 300
	s, url = startServer(t, cfg)
	s.eng.mu.Lock()
	steps = s.eng.core.steps
	s.eng.mu.Unlock()
	embeddingsOf(t, url, map[string]any{"input": inputs})
	s.eng.mu.Lock()
	defer s.eng.mu.Unlock()
	if got := s.eng.core.steps - steps; got != 3 {
		t.Errorf("%d steps with a budget of 300, want 3", got)
	}
}
