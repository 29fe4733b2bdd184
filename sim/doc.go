// Package sim is the built-in simulated engine: an HTTP server speaking OpenAI's chat,
// completions, Responses and embeddings APIs and Anthropic's Messages API (/v1/chat/completions,
// /v1/completions, /v1/responses, /v1/messages, /v1/embeddings, /v1/models, /health, /metrics)
// whose timings come from a cost model of continuous batching with chunked prefill, a block KV
// cache and an LRU prefix cache, on a virtual clock that is deterministic under a seed.
// It must never pretend to be a real model: every answer is the synthetic filler " tok" repeated
// exactly max_tokens times (in each choice), except where a request asks for JSON (below), every
// embedding a unit vector made from a hash of its input, and the model it lists is owned by
// "replay-simulator".
// Requests come from the replay client (or any OpenAI client); token counts come from the Counter
// and Tokenize hooks the caller supplies, with a documented approximation when they are absent.
// A chat prompt is counted with the ChatCounter hook, given the messages (earlier turns' tool
// calls and tool answers included) and the request's tools, which a chat template renders into
// the prompt; the tools and calls also key the prompt's cache blocks.
//
// A request's options count where they change the engine's work; the simulator models cost, not
// content. n > 1 gives n choices, each with its own index (in every streamed chunk too) and
// max_tokens long, usage and vllm:generation_tokens_total counting them all; in the cost model
// they share the prompt's prefill and then decode together, each choice a batch slot, a budget
// token a step and its own KV blocks. stream false gives one body once the answer is complete. A
// constrained request (response_format json_object, json_schema or structural_tag; a non-empty
// tools list unless tool_choice is "none"; vLLM's guided_* and structured_outputs) decodes
// Config.StructuredDecodeFactor times slower per token. A chat request that asks for JSON gets
// JSON, so that a client's parsers and schema checks have something true to check: with tools and
// tool_choice "required" or naming a function, a call of it (streamed as tool_calls deltas, or as
// message.tool_calls, finish_reason "tool_calls") whose arguments are a minimal valid instance of
// its parameters; with response_format json_schema, such an instance of the schema as the content,
// with json_object "{}" (finish_reason "stop"). Such an answer is as many tokens as the Counter
// makes of its JSON, at most max_tokens (cut there, finish_reason "length"), padded with " "
// tokens to min_tokens (max_tokens under ignore_eos); usage counts those tokens (output.go says
// how). Every other constrained request (structural_tag, the guided fields, tools the model may
// leave uncalled) answers with the filler. stop is accepted and never matched, since the filler
// stands for text of the replayed length, so an answer runs to max_tokens with or without it.
// temperature, top_p, seed, presence_penalty, frequency_penalty, logprobs and top_logprobs are
// checked against vLLM's ranges (HTTP 400 naming the field) and change nothing else; logprobs are
// not produced. max_completion_tokens is max_tokens when that is absent. vLLM's
// thinking_token_budget makes a chat, Responses or Messages answer think that many of its
// tokens first, streamed in the API's reasoning dialect (thinking.go). Unknown fields are
// ignored. Zero-cost mode honours n and stream alike (it has no decode to slow).
//
// The Responses API and the Messages API are chat in another dialect (dialect.go): a body
// becomes the chat Request of the same conversation, as vLLM converts both (chatform.go):
// instructions or system a leading system message, a function_call item or tool_use block an
// assistant turn's tool call, a function_call_output item or tool_result block a tool message,
// tools in chat's shape; so with the same hooks their prompts count, cache and cost exactly as
// chat's, and max_output_tokens or max_tokens, min_tokens, ignore_eos, tool_choice and
// structured formats (text.format, output_config.format) act as chat's fields do. Only the
// answer's framing differs, each in its API's published shape (responses_wire.go,
// messages_wire.go): a run to the cap is the Responses API's "incomplete" (reason
// max_output_tokens) and Anthropic's stop_reason "max_tokens", as it is chat's
// finish_reason "length"; Anthropic's input_tokens exclude the prefix cache's tokens, given
// apart as cache_read_input_tokens (chat and the Responses API count them inside the prompt).
// Errors take each API's own shape (Anthropic's {"type":"error","error":{...}}). An embeddings
// request prefills each input in the engine as a prompt that generates nothing, batched with
// the other work (embed.go).
//
// Faults (Config.Faults) give each request at most one failure, so that each has exactly one
// expected outcome: HTTP 500, HTTP 429, a connection cut half-way through the answer, a stall
// (before the first byte, or after the headers and the first chunk, for a time or until the
// client leaves) or garbage (HTTP 200 with event-stream frames that are not JSON, then [DONE]).
// Their rates are consecutive slices of one uniform draw, keyed by Config.Seed and the request's
// X-Request-Id header when it has one (Faults.Draw tells a test what each id will get, whatever
// the arrival order), else by its arrival number. Faults act alike in zero-cost mode and under
// the cost model, streaming or not. Faults.RetryAfter adds a Retry-After header to every 429
// (injected or from a full queue) and 503.
package sim
