package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/llm-replay/replay/sim"
)

// completion answers an OpenAI request as a model told "Say OK." does: two tokens and stop,
// unless the server honours ignore_eos (and honours is set), then max_tokens and "length".
func completion(honours bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			MaxTokens int  `json:"max_tokens"`
			IgnoreEOS bool `json:"ignore_eos"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		n, reason := 2, "stop"
		if honours && req.IgnoreEOS {
			n, reason = req.MaxTokens, "length"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"cmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,`+
			`"message":{"role":"assistant","content":"OK."},"finish_reason":%q}],`+
			`"usage":{"prompt_tokens":12,"completion_tokens":%d,"total_tokens":%d}}`, reason, n, 12+n)
	}
}

// withCompletions adds the OpenAI routes to an engine's fake.
func withCompletions(f *fake, h http.HandlerFunc) *fake {
	f.routes["POST /v1/chat/completions"] = h
	f.routes["POST /v1/completions"] = h
	return f
}

// TestProbeForcingHonoured: vLLM honours ignore_eos: the probe sends it with min_tokens and
// reads 32 of 32.
func TestProbeForcingHonoured(t *testing.T) {
	f := withCompletions(vllmFake(false), completion(true))
	srv := serve(t, f)
	res, err := ProbeForcing(context.Background(), srv.Client(), srv.URL+"/v1", "chat", "m", VLLM, 32)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Forced || res.Got != 32 || res.Want != 32 || res.FinishReason != "length" || !strings.HasPrefix(res.Note, "output length forced") {
		t.Fatalf("%+v", res)
	}
	body := f.lastBody()
	if body["ignore_eos"] != true || body["min_tokens"] != 32.0 || body["max_tokens"] != 32.0 || body["stream"] != false {
		t.Fatalf("sent %v", body)
	}
	if msgs, _ := body["messages"].([]any); len(msgs) != 1 {
		t.Fatalf("sent %v", body)
	}
}

// TestProbeForcingIgnored: a server that takes ignore_eos but ignores it answers 2 tokens and
// stop; the probe says forcing does not work.
func TestProbeForcingIgnored(t *testing.T) {
	f := withCompletions(sglangFake(false), completion(false))
	srv := serve(t, f)
	res, err := ProbeForcing(context.Background(), srv.Client(), srv.URL+"/v1", "completions", "m", SGLang, 32)
	if err != nil {
		t.Fatal(err)
	}
	if res.Forced || res.Got != 2 || res.FinishReason != "stop" || !strings.HasPrefix(res.Note, "forcing does not work on this endpoint") {
		t.Fatalf("%+v", res)
	}
	if body := f.lastBody(); body["prompt"] == nil || body["ignore_eos"] != true {
		t.Fatalf("sent %v", body)
	}
}

// TestProbeForcingLlamaCpp: llama.cpp takes ignore_eos alone; it has no min_tokens.
func TestProbeForcingLlamaCpp(t *testing.T) {
	f := withCompletions(llamacppFake(), completion(true))
	srv := serve(t, f)
	res, err := ProbeForcing(context.Background(), srv.Client(), srv.URL+"/v1", "chat", "m", LlamaCpp, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Forced || res.Want != 32 {
		t.Fatalf("%+v", res)
	}
	if body := f.lastBody(); body["ignore_eos"] != true || body["min_tokens"] != nil {
		t.Fatalf("sent %v", body)
	}
}

// TestProbeForcingNotForceable: on TGI and Ollama nothing is sent beyond max_tokens; the probe
// still tells whether lengths reach their targets (a model that never stops, as Ollama's e2e
// random-weight model, does; a real one does not).
func TestProbeForcingNotForceable(t *testing.T) {
	f := withCompletions(tgiFake(), completion(true))
	srv := serve(t, f)
	res, err := ProbeForcing(context.Background(), srv.Client(), srv.URL+"/v1", "chat", "m", TGI, 16)
	if err != nil {
		t.Fatal(err)
	}
	if res.Forced || res.Fields != nil || !strings.Contains(res.Note, "not forceable on TGI") {
		t.Fatalf("%+v", res)
	}
	if body := f.lastBody(); body["ignore_eos"] != nil {
		t.Fatalf("sent %v", body)
	}
	runsOn := withCompletions(ollamaFake(), func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"choices":[{"finish_reason":"length"}],"usage":{"completion_tokens":16}}`)
	})
	srv2 := serve(t, runsOn)
	res, err = ProbeForcing(context.Background(), srv2.Client(), srv2.URL+"/v1", "chat", "m", Ollama, 16)
	if err != nil || !res.Forced || res.Fields != nil || !strings.Contains(res.Note, "ran to the cap on its own") {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestProbeForcingRejected: a server that forbids the fields (OpenAI's "Unrecognized request
// argument") is a result with the status and the server's words.
func TestProbeForcingRejected(t *testing.T) {
	f := withCompletions(genericFake(), func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"Unrecognized request argument supplied: ignore_eos","type":"invalid_request_error"}}`)
	})
	srv := serve(t, f)
	res, err := ProbeForcing(context.Background(), srv.Client(), srv.URL+"/v1", "chat", "m", VLLM, 32)
	if err != nil {
		t.Fatal(err)
	}
	if res.Forced || res.Status != 400 || !strings.Contains(res.Note, "Unrecognized request argument supplied: ignore_eos") {
		t.Fatalf("%+v", res)
	}
}

func TestProbeForcingNoUsage(t *testing.T) {
	f := withCompletions(genericFake(), func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"choices":[{"finish_reason":"stop"}]}`) })
	srv := serve(t, f)
	res, err := ProbeForcing(context.Background(), srv.Client(), srv.URL+"/v1", "chat", "m", VLLM, 8)
	if err != nil || res.Got != -1 || res.Forced || !strings.Contains(res.Note, "inconclusive") {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestProbeForcingSimulator: the built-in simulator honours vLLM's fields.
func TestProbeForcingSimulator(t *testing.T) {
	url, stop, err := sim.Listen(context.Background(), "127.0.0.1:0", sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	res, err := ProbeForcing(context.Background(), nil, url+"/v1", "completions", sim.DefaultConfig().ModelName, VLLM, 24)
	if err != nil || !res.Forced {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestProbeForcingErrors(t *testing.T) {
	srv := serve(t, genericFake())
	for _, c := range []struct{ base, api, model string }{
		{"nope", "chat", "m"}, {srv.URL + "/v1", "embeddings", "m"}, {srv.URL + "/v1", "chat", ""},
	} {
		if _, err := ProbeForcing(context.Background(), nil, c.base, c.api, c.model, VLLM, 8); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	srv.Close()
	if _, err := ProbeForcing(context.Background(), nil, srv.URL+"/v1", "chat", "m", VLLM, 8); err == nil {
		t.Error("no error when nothing answers")
	}
}
