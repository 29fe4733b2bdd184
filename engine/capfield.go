package engine

// ReadsMaxCompletionTokens reports whether e caps an answer at max_completion_tokens, the
// newer name of the OpenAI API's output cap. Ollama does not: its OpenAI layer (openai/openai.go
// in v0.17.4, ChatCompletionRequest and CompletionRequest) reads max_tokens only, so a request
// that sends the cap as max_completion_tokens runs unbounded there (measured by e2e/ollama's
// options slice: never capped, cut by the 30 s timeout). Every other engine here reads both,
// and a generic server is assumed to.
func (e Engine) ReadsMaxCompletionTokens() bool { return e != Ollama }
