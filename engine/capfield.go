package engine

// ReadsMaxCompletionTokens reports whether e caps an answer at max_completion_tokens, the
// newer name of the OpenAI API's output cap. Ollama does not: its OpenAI layer (openai/openai.go
// in v0.17.4, ChatCompletionRequest and CompletionRequest) reads max_tokens only, so a request
// that sends the cap as max_completion_tokens runs unbounded there (measured by e2e/ollama's
// options slice: never capped, cut by the 30 s timeout). Every other engine here reads both,
// and a generic server is assumed to.
func (e Engine) ReadsMaxCompletionTokens() bool { return e != Ollama }

// ForcesOn reports whether the output-forcing fields e reads on its chat and completions
// APIs (ignore_eos, min_tokens) reach the generation when sent to api as well. llama.cpp's
// server does not pass them through its Anthropic Messages API: /v1/messages converts the
// body to a chat request keeping only messages, system, tools, tool_choice, stop_sequences,
// max_tokens, temperature, top_p, top_k, stream, chat_template_kwargs, thinking and
// metadata (ggml-org/llama.cpp@03eb25f39343f1c9ecc6f85ca4f9796a6ab7b230:
// tools/server/server-chat.cpp, server_chat_convert_anthropic_to_oai; measured on b11669 by
// e2e/llamacpp's apis slice: ignore_eos sent, the answer still ends at end_turn). Its
// Responses API copies the body's other fields, and forcing holds there (the same slice).
// Other engines are assumed to pass them everywhere.
func (e Engine) ForcesOn(api string) bool { return !(e == LlamaCpp && api == "messages") }
