package sim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func TestStreamChatExactTokensAndUsage(t *testing.T) {
	for _, zero := range []bool{false, true} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		_, url := startServer(t, cfg)
		const maxTokens = 37
		res := post(t, url, "/v1/chat/completions", map[string]any{
			"model":          "m1",
			"messages":       []map[string]any{{"role": "system", "content": "be brief"}, {"role": "user", "content": []map[string]string{{"type": "text", "text": "hello world"}}}},
			"max_tokens":     maxTokens,
			"stream":         true,
			"stream_options": map[string]bool{"include_usage": true},
		})
		if res.status != 200 || res.err != nil || !res.done {
			t.Fatalf("zero=%v: status %d err %v done %v body %s", zero, res.status, res.err, res.done, res.body)
		}
		if len(res.events) != maxTokens+1 {
			t.Fatalf("zero=%v: got %d events, want %d token chunks + 1 usage chunk", zero, len(res.events), maxTokens)
		}
		var content strings.Builder
		for i, ev := range res.events[:maxTokens] {
			var c openai.ChatCompletionStreamResponse
			if err := json.Unmarshal(ev, &c); err != nil {
				t.Fatalf("chunk %d: %v: %s", i, err, ev)
			}
			if c.Object != "chat.completion.chunk" || c.Model != "m1" || len(c.Choices) != 1 || c.Usage != nil {
				t.Fatalf("chunk %d has the wrong shape: %s", i, ev)
			}
			ch := c.Choices[0]
			if (i == 0) != (ch.Delta.Role == "assistant") {
				t.Errorf("chunk %d: role %q (only the first chunk carries the role)", i, ch.Delta.Role)
			}
			wantFinish := openai.FinishReason("")
			if i == maxTokens-1 {
				wantFinish = "length"
			}
			if ch.FinishReason != wantFinish {
				t.Errorf("chunk %d: finish_reason %q, want %q", i, ch.FinishReason, wantFinish)
			}
			content.WriteString(ch.Delta.Content)
		}
		if got := content.String(); got != strings.Repeat(fillerToken, maxTokens) {
			t.Errorf("content %q", got)
		}
		// The usage chunk: empty choices (present, not null) and usage with cached tokens.
		var last map[string]json.RawMessage
		if err := json.Unmarshal(res.events[maxTokens], &last); err != nil {
			t.Fatal(err)
		}
		if string(last["choices"]) != "[]" {
			t.Errorf("usage chunk choices = %s, want []", last["choices"])
		}
		var u openai.Usage
		if err := json.Unmarshal(last["usage"], &u); err != nil {
			t.Fatal(err)
		}
		// Default chat count: ceil(8/4)+ceil(11/4) contents + 3 per message + 3.
		wantPrompt := 2 + 3 + 3 + 3 + 3
		if u.PromptTokens != wantPrompt || u.CompletionTokens != maxTokens || u.TotalTokens != wantPrompt+maxTokens || u.PromptTokensDetails == nil {
			t.Errorf("zero=%v: usage %s, want prompt %d completion %d", zero, last["usage"], wantPrompt, maxTokens)
		}
	}
}

func TestStreamCompletionsPromptForms(t *testing.T) {
	_, url := startServer(t, fastConfig())
	cases := []struct {
		prompt     any
		wantPrompt int
	}{
		{"abcdefgh", 2},
		{[]string{"abcdefghijkl"}, 3},
		{ids(100, 21), 21},
		{[][]int{ids(5, 9)}, 9},
	}
	for _, tc := range cases {
		const maxTokens = 12
		res := post(t, url, "/v1/completions", map[string]any{
			"model": "m", "prompt": tc.prompt, "max_tokens": maxTokens, "stream": true, "ignore_eos": true, "min_tokens": maxTokens,
			"stream_options": map[string]bool{"include_usage": true},
		})
		if res.status != 200 || res.err != nil || !res.done || len(res.events) != maxTokens+1 {
			t.Fatalf("prompt %v: status %d err %v events %d body %s", tc.prompt, res.status, res.err, len(res.events), res.body)
		}
		text := ""
		for i, ev := range res.events[:maxTokens] {
			var c openai.CompletionResponse
			if err := json.Unmarshal(ev, &c); err != nil || c.Object != "text_completion" || len(c.Choices) != 1 {
				t.Fatalf("chunk %d: %v %s", i, err, ev)
			}
			text += c.Choices[0].Text
		}
		if text != strings.Repeat(fillerToken, maxTokens) {
			t.Errorf("text %q", text)
		}
		var c openai.CompletionResponse
		if err := json.Unmarshal(res.events[maxTokens], &c); err != nil || c.Usage == nil {
			t.Fatalf("usage chunk: %v %s", err, res.events[maxTokens])
		}
		if c.Usage.PromptTokens != tc.wantPrompt || c.Usage.CompletionTokens != maxTokens {
			t.Errorf("prompt %v: usage %+v, want prompt %d", tc.prompt, *c.Usage, tc.wantPrompt)
		}
	}
}

func TestNonStreaming(t *testing.T) {
	for _, zero := range []bool{false, true} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		_, url := startServer(t, cfg)
		res := post(t, url, "/v1/chat/completions", map[string]any{
			"messages": []map[string]string{{"role": "user", "content": "x"}}, "max_completion_tokens": 5,
		})
		var c openai.ChatCompletionResponse
		if err := json.Unmarshal(res.body, &c); err != nil || res.status != 200 {
			t.Fatalf("status %d: %v %s", res.status, err, res.body)
		}
		if c.Object != "chat.completion" || c.Model != "replay-sim" || len(c.Choices) != 1 ||
			c.Choices[0].Message.Content != strings.Repeat(fillerToken, 5) || c.Choices[0].FinishReason != "length" ||
			c.Usage.CompletionTokens != 5 || c.Usage.PromptTokens != 7 {
			t.Errorf("zero=%v: %s", zero, res.body)
		}
	}
}

// TestGoOpenAIClient checks the simulator against the client library the replay client uses.
func TestGoOpenAIClient(t *testing.T) {
	_, url := startServer(t, fastConfig())
	cc := openai.DefaultConfig("unused")
	cc.BaseURL = url + "/v1"
	client := openai.NewClientWithConfig(cc)
	stream, err := client.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		//lint:ignore SA1019 the simulator reads max_tokens like vLLM
		Model: "x", MaxTokens: 9, Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	chunks, completion := 0, 0
	for {
		r, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Choices) > 0 && r.Choices[0].Delta.Content != "" {
			chunks++
		}
		if r.Usage != nil {
			completion = r.Usage.CompletionTokens
		}
	}
	if chunks != 9 || completion != 9 {
		t.Errorf("chunks %d, usage completion %d, want 9 and 9", chunks, completion)
	}
	models, err := client.ListModels(context.Background())
	if err != nil || len(models.Models) != 1 || models.Models[0].ID != "replay-sim" || models.Models[0].OwnedBy != "replay-simulator" {
		t.Errorf("models %+v %v", models, err)
	}
}

func TestTokensPerChunk(t *testing.T) {
	cfg := fastConfig()
	cfg.TokensPerChunk = 4
	_, url := startServer(t, cfg)
	res := post(t, url, "/v1/completions", map[string]any{"prompt": "hi", "max_tokens": 10, "stream": true})
	if len(res.events) != 3 || !res.done {
		t.Fatalf("got %d events (want ceil(10/4) = 3), done %v", len(res.events), res.done)
	}
	var c openai.CompletionResponse
	json.Unmarshal(res.events[2], &c)
	if c.Choices[0].Text != strings.Repeat(fillerToken, 2) || c.Choices[0].FinishReason != "length" {
		t.Errorf("last chunk %s", res.events[2])
	}
}

func TestBadRequests(t *testing.T) {
	cfg := fastConfig()
	cfg.MaxModelLen = 100
	cfg.NumBlocks = 4
	cfg.BlockSize = 16
	_, url := startServer(t, cfg)
	cases := map[string]struct {
		path string
		body string
		want int
	}{
		"not json":           {"/v1/completions", `{`, 400},
		"no prompt":          {"/v1/completions", `{"max_tokens":3}`, 400},
		"no messages":        {"/v1/chat/completions", `{"messages":[]}`, 400},
		"zero max_tokens":    {"/v1/completions", `{"prompt":"a","max_tokens":0}`, 400},
		"batch prompts":      {"/v1/completions", `{"prompt":["a","b"]}`, 400},
		"negative id":        {"/v1/completions", `{"prompt":[1,-2]}`, 400},
		"n=0":                {"/v1/completions", `{"prompt":"a","max_tokens":1,"n":0}`, 400},
		"n above 128":        {"/v1/completions", `{"prompt":"a","max_tokens":1,"n":129}`, 400},
		"too long":           {"/v1/completions", `{"prompt":"a","max_tokens":100}`, 400},
		"more than kv holds": {"/v1/completions", `{"prompt":"a","max_tokens":64}`, 400},
		"min > max":          {"/v1/completions", `{"prompt":"a","max_tokens":2,"min_tokens":3}`, 400},
		"empty prompt":       {"/v1/completions", `{"prompt":""}`, 400},
	}
	for name, tc := range cases {
		resp, err := http.Post(url+tc.path, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
			} `json:"error"`
		}
		if resp.StatusCode != tc.want || json.Unmarshal(b, &e) != nil || e.Error.Message == "" {
			t.Errorf("%s: status %d body %s, want %d with an OpenAI error", name, resp.StatusCode, b, tc.want)
		}
	}
	resp, err := http.Get(url + "/v1/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET completions: %d", resp.StatusCode)
	}
}

func TestNotStarted(t *testing.T) {
	s := New(DefaultConfig())
	rec := httptestRecorder(s, `{"prompt":"a"}`)
	if rec != http.StatusServiceUnavailable {
		t.Errorf("status %d before Start, want 503", rec)
	}
	bad := DefaultConfig()
	bad.MaxBatch = 0
	if err := New(bad).Start(context.Background()); err == nil || !strings.Contains(err.Error(), "MaxBatch") {
		t.Errorf("Start with MaxBatch 0: %v", err)
	}
}

func TestListen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, stop, err := Listen(ctx, "127.0.0.1:0", fastConfig())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("url %q", url)
	}
	resp, err := http.Get(url + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	// A stream still running when the simulator stops is cut, and stop returns promptly.
	done := make(chan sseResult, 1)
	go func() {
		done <- post(t, url, "/v1/completions", map[string]any{"prompt": "a", "max_tokens": 100000, "stream": true})
	}()
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("stop took %v", d)
	}
	if res := <-done; res.done || res.err == nil {
		t.Errorf("stream survived stop: done %v err %v", res.done, res.err)
	}
	if err := stop(); err != nil {
		t.Errorf("second stop: %v", err)
	}
}
