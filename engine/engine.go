package engine

import (
	"fmt"
	"slices"
	"strings"
)

// Engine names a serving engine, as --engine spells it.
type Engine string

const (
	// Auto is not an engine: it asks for Detect. ParseEngine returns it for "auto" and "".
	Auto Engine = "auto"

	VLLM     Engine = "vllm"
	SGLang   Engine = "sglang"
	TGI      Engine = "tgi"      // Hugging Face text-generation-inference
	TRTLLM   Engine = "trtllm"   // TensorRT-LLM's trtllm-serve
	LlamaCpp Engine = "llamacpp" // llama.cpp's llama-server
	Ollama   Engine = "ollama"
	OpenAI   Engine = "openai" // OpenAI's managed API
	// Generic is any other OpenAI-compatible endpoint: nothing beyond the OpenAI API is used.
	Generic Engine = "generic"
)

// all is every engine, in the order ties are broken and names are listed.
var all = []Engine{VLLM, SGLang, TGI, TRTLLM, LlamaCpp, Ollama, OpenAI, Generic}

// All lists the engines (not Auto).
func All() []Engine { return slices.Clone(all) }

// labels are the engines' names as their projects write them, for messages.
var labels = map[Engine]string{
	VLLM: "vLLM", SGLang: "SGLang", TGI: "TGI", TRTLLM: "TensorRT-LLM", LlamaCpp: "llama.cpp",
	Ollama: "Ollama", OpenAI: "OpenAI", Generic: "a generic OpenAI-compatible server", Auto: "auto",
}

// Label is the engine's name as its project writes it ("vLLM", "TensorRT-LLM").
func (e Engine) Label() string {
	if l, ok := labels[e]; ok {
		return l
	}
	return string(e)
}

// aliases are other spellings users type for an engine.
var aliases = map[string]Engine{
	"llama.cpp": LlamaCpp, "llama-cpp": LlamaCpp, "llama-server": LlamaCpp,
	"tensorrt-llm": TRTLLM, "trt-llm": TRTLLM, "trtllm-serve": TRTLLM,
	"text-generation-inference": TGI,
}

// ParseEngine reads --engine: auto (or empty) or one of the engines, case-insensitive, with a
// few common spellings (llama.cpp, tensorrt-llm, text-generation-inference).
func ParseEngine(flag string) (Engine, error) {
	s := strings.ToLower(strings.TrimSpace(flag))
	if s == "" || s == string(Auto) {
		return Auto, nil
	}
	if e, ok := aliases[s]; ok {
		return e, nil
	}
	if slices.Contains(all, Engine(s)) {
		return Engine(s), nil
	}
	names := []string{string(Auto)}
	for _, e := range all {
		names = append(names, string(e))
	}
	return "", fmt.Errorf("--engine %q: want one of %s", flag, strings.Join(names, ", "))
}
