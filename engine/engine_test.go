package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseEngine(t *testing.T) {
	for in, want := range map[string]Engine{
		"": Auto, "auto": Auto, "vllm": VLLM, "SGLang": SGLang, " tgi ": TGI, "trtllm": TRTLLM, "tensorrt-llm": TRTLLM,
		"llamacpp": LlamaCpp, "llama.cpp": LlamaCpp, "ollama": Ollama, "openai": OpenAI, "generic": Generic,
		"text-generation-inference": TGI,
	} {
		if got, err := ParseEngine(in); err != nil || got != want {
			t.Errorf("ParseEngine(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseEngine("vlm")
	if err == nil || !strings.Contains(err.Error(), `--engine "vlm": want one of auto, vllm, sglang, tgi, trtllm, llamacpp, ollama, openai, generic`) {
		t.Fatalf("error %v", err)
	}
}

// TestForceFields: the fields each engine documents (force.go names the sources).
func TestForceFields(t *testing.T) {
	want := map[Engine]string{
		VLLM:     "map[ignore_eos:true min_tokens:128]",
		SGLang:   "map[ignore_eos:true min_tokens:128]",
		TRTLLM:   "map[ignore_eos:true min_tokens:128]",
		LlamaCpp: "map[ignore_eos:true]",
		TGI:      "map[]", Ollama: "map[]", OpenAI: "map[]", Generic: "map[]", Auto: "map[]",
	}
	for e, w := range want {
		got := e.ForceFields(128)
		if fmt.Sprint(got) != w {
			t.Errorf("%s: %v, want %s", e, got, w)
		}
		if e.Forceable() != (got != nil) {
			t.Errorf("%s: Forceable %v with fields %v", e, e.Forceable(), got)
		}
		if note := e.ForceNote(); note == "" || (got == nil) != strings.Contains(note, "not") {
			t.Errorf("%s: note %q", e, note)
		}
	}
	if got := VLLM.ForceFields(0); fmt.Sprint(got) != "map[ignore_eos:true]" {
		t.Errorf("vllm without a length: %v (the one ExtraBody for every request)", got)
	}
}

func TestMetricsURL(t *testing.T) {
	for e, want := range map[Engine]string{
		VLLM: "http://h:8000/metrics", TRTLLM: "http://h:8000/prometheus/metrics", Ollama: "", OpenAI: "", Generic: "http://h:8000/metrics",
	} {
		got, err := e.MetricsURL("http://h:8000/v1")
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", e, got, err, want)
		}
		if e.MetricsNote() == "" {
			t.Errorf("%s: no metrics note", e)
		}
	}
}
