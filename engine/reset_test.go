package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestResetVLLM(t *testing.T) {
	f := vllmFake(true)
	srv := serve(t, f)
	res, err := ResetPrefixCache(context.Background(), srv.Client(), srv.URL+"/v1", VLLM)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Supported || !res.Reset || res.Status != 200 || res.Endpoint != "POST "+srv.URL+"/reset_prefix_cache" {
		t.Fatalf("%+v", res)
	}
	if !slices.Contains(f.calls(), "POST /reset_prefix_cache") {
		t.Fatalf("calls %v", f.calls())
	}
}

// TestResetVLLMWithoutDevMode: without VLLM_SERVER_DEV_MODE=1 the route is absent; the result
// says how to get it.
func TestResetVLLMWithoutDevMode(t *testing.T) {
	srv := serve(t, vllmFake(false))
	res, err := ResetPrefixCache(context.Background(), srv.Client(), srv.URL+"/v1", VLLM)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Supported || res.Reset || res.Status != 404 || !strings.Contains(res.Why, "VLLM_SERVER_DEV_MODE=1") {
		t.Fatalf("%+v", res)
	}
}

func TestResetSGLang(t *testing.T) {
	f := sglangFake(false)
	srv := serve(t, f)
	res, err := ResetPrefixCache(context.Background(), srv.Client(), srv.URL, SGLang)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reset || !slices.Contains(f.calls(), "POST /flush_cache") {
		t.Fatalf("%+v, calls %v", res, f.calls())
	}
	busy := serve(t, sglangFake(true))
	res, err = ResetPrefixCache(context.Background(), busy.Client(), busy.URL, SGLang)
	if err != nil || res.Reset || res.Status != 400 || !strings.Contains(res.Why, "no request is running or waiting") {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestResetUnsupported: engines without a reset endpoint are told so, and nothing is sent.
func TestResetUnsupported(t *testing.T) {
	for _, e := range []Engine{TGI, TRTLLM, Ollama, OpenAI, Generic} {
		f := tgiFake()
		srv := serve(t, f)
		res, err := ResetPrefixCache(context.Background(), srv.Client(), srv.URL, e)
		if err != nil || res.Supported || res.Reset || res.Why == "" || res.Endpoint != "" {
			t.Errorf("%s: %+v %v", e, res, err)
		}
		if len(f.calls()) != 0 {
			t.Errorf("%s: sent %v", e, f.calls())
		}
	}
}

func TestResetNoAnswer(t *testing.T) {
	srv := serve(t, vllmFake(true))
	srv.Close()
	res, err := ResetPrefixCache(context.Background(), nil, srv.URL, VLLM)
	if err != nil || res.Reset || res.Status != 0 || !strings.HasPrefix(res.Why, "no answer") {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := ResetPrefixCache(context.Background(), nil, "bad", VLLM); err == nil {
		t.Fatal("no error for a bad URL")
	}
}
