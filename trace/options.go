package trace

import "encoding/json"

// Options are how one logged request asked to be served beyond its lengths, and how it ended:
// the parts of the body that change the engine's work (streaming, sampling, stop, tools,
// structured output, n) and the outcome the log recorded (status, finish_reason, whether and
// when the client gave up). A nil *Options on a Record means the trace says nothing of them;
// within Options a nil pointer or empty value means the field was absent from the body.
//
// Text stays out unless the trace was kept with text: tool and JSON-schema descriptions (and
// titles, comments, enum, const, default and example values) are replaced by synthetic text
// of the same token length by the reader (names, types, patterns and structure, key order
// included, are kept); stop strings are kept, since they are configuration, not content.
// The normalized trace stores Options as JSON in its `options` column (trace/SCHEMA.md;
// EncodeOptions, DecodeOptions), the Mooncake export as an "options" object.
type Options struct {
	// API is "chat" or "completions": which endpoint the request was sent to.
	API string `json:"api,omitempty"`
	// Stream is the body's stream flag; IncludeUsage its stream_options.include_usage.
	Stream       *bool `json:"stream,omitempty"`
	IncludeUsage *bool `json:"include_usage,omitempty"`
	// Sampling, as sent. With N > 1 the record's OutputTokens counts every choice, as usage
	// does. A completions request's logprobs: k is Logprobs true and TopLogprobs k.
	Temperature      *float64 `json:"temperature,omitempty"`
	TopP             *float64 `json:"top_p,omitempty"`
	N                int      `json:"n,omitempty"`
	Seed             *int64   `json:"seed,omitempty"`
	Stop             []string `json:"stop,omitempty"`
	PresencePenalty  *float64 `json:"presence_penalty,omitempty"`
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	Logprobs         *bool    `json:"logprobs,omitempty"`
	TopLogprobs      *int     `json:"top_logprobs,omitempty"`
	// MaxTokensField is the field that carried the output cap: "max_tokens" or
	// "max_completion_tokens" ("" when the body had neither).
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	// Tools, ToolChoice and ResponseFormat are the body's JSON, compact, descriptions replaced
	// unless the trace keeps text (tool_choice holds only names and is kept); ParallelToolCalls
	// its flag.
	Tools             json.RawMessage `json:"tools,omitempty"`
	ToolChoice        json.RawMessage `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls,omitempty"`
	ResponseFormat    json.RawMessage `json:"response_format,omitempty"`

	// Outcome as logged: the HTTP status (0 unknown), the first choice's finish_reason, and
	// whether the client gave up (a 499 or "cancelled": true), CancelAfterMS after the send.
	Status        int     `json:"status,omitempty"`
	FinishReason  string  `json:"finish_reason,omitempty"`
	Cancelled     bool    `json:"cancelled,omitempty"`
	CancelAfterMS float64 `json:"cancel_after_ms,omitempty"`

	// Body is the logged request body (compacted: insignificant white space dropped, so the
	// trace stores and reads back the same bytes), only in a trace kept with text
	// (--keep-text), for --body verbatim.
	Body json.RawMessage `json:"body,omitempty"`
}

// Streamed reports whether the request streamed its answer (the default when unknown).
func (o *Options) Streamed() bool { return o == nil || o.Stream == nil || *o.Stream }

// Structured reports whether the answer was constrained: tools offered or a response_format
// other than plain text. Such requests are not forced to their logged output length.
func (o *Options) Structured() bool {
	if o == nil {
		return false
	}
	return len(o.Tools) > 0 || (len(o.ResponseFormat) > 0 && string(o.ResponseFormat) != `{"type":"text"}`)
}

// RanToLength reports whether the logged request stopped at its output cap: the only requests
// whose output length a replay forces (ignore_eos, min_tokens), since one that stopped on its
// own would otherwise run past where it ended.
func (o *Options) RanToLength() bool { return o != nil && o.FinishReason == "length" }
