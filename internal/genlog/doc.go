// Package genlog writes a realistic, seeded OpenAI-compatible request log for requestlog's tests
// and scripts/check-requestlog.sh: shared system prompts, multi-turn chats that grow, long
// documents shared between chats, duplicate prompts and plain completions, interleaved in time.
// With Config.Options it also mixes in the options production traffic carries (non-streamed
// requests, sampling, stop, n > 1, logprobs, max_completion_tokens, JSON schemas, agents with
// tools and tool turns, fields the reader does not know, cancelled requests) and, given a model
// (Config.Chat and Config.Tokenizer), logs usage.prompt_tokens as a server counts them. It
// returns the ground truth (conversation and turn of every line, and the options, prompt and
// output lengths the reader must find) beside the log. It must not be used by product code;
// request i of a log depends only on the configuration, never on the length asked for, so a
// shorter log is a prefix of a longer one.
package genlog
