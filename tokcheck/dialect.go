package tokcheck

import "fmt"

// Dialect is how one engine's tokenize route is asked.
type Dialect string

// The engines whose tokenize routes are known.
const (
	// LlamaCpp is llama.cpp's llama-server: POST /tokenize {content, add_special, parse_special}
	// answers {tokens: [ids]}; POST /apply-template {messages} answers {prompt} (ggml-org/llama.cpp
	// tools/server/README.md at 00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b, "POST /tokenize" and
	// "POST /apply-template").
	LlamaCpp Dialect = "llamacpp"
	// VLLM is vLLM's OpenAI server: POST /tokenize {model, prompt, add_special_tokens} or
	// {model, messages, add_generation_prompt} answers {count, tokens, max_model_len}
	// (vllm-project/vllm vllm/entrypoints/openai/protocol.py TokenizeCompletionRequest,
	// TokenizeChatRequest, TokenizeResponse; serving_tokenization.py).
	VLLM Dialect = "vllm"
)

// ForEngine is the dialect of an engine by the name package engine gives it, and whether the
// engine is known to serve a tokenize route (auto turns the check on only then).
func ForEngine(name string) (Dialect, bool) {
	switch name {
	case "llamacpp", "llama.cpp":
		return LlamaCpp, true
	case "vllm":
		return VLLM, true
	}
	return "", false
}

// ParseDialect reads a dialect name.
func ParseDialect(s string) (Dialect, error) {
	switch d := Dialect(s); d {
	case LlamaCpp, VLLM:
		return d, nil
	}
	return "", fmt.Errorf("tokcheck: dialect %q: want %s or %s", s, LlamaCpp, VLLM)
}
