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
	// API is the endpoint the request was logged against, which a replay sends it to: one of
	// the API constants (chat, completions, responses, messages, embeddings); "" when the
	// trace does not say (the run's --api decides).
	API string `json:"api,omitempty"`
	// Stream is the body's stream flag; IncludeUsage its stream_options.include_usage.
	Stream       *bool `json:"stream,omitempty"`
	IncludeUsage *bool `json:"include_usage,omitempty"`
	// Sampling, as sent. With N > 1 the record's OutputTokens counts every choice, as usage
	// does. A completions request's logprobs: k is Logprobs true and TopLogprobs k.
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	N           int      `json:"n,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	// StopString says the body's stop was one string, not a list (both are the API's).
	StopString       bool     `json:"stop_string,omitempty"`
	PresencePenalty  *float64 `json:"presence_penalty,omitempty"`
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	Logprobs         *bool    `json:"logprobs,omitempty"`
	TopLogprobs      *int     `json:"top_logprobs,omitempty"`
	// MaxTokensField is the field that carried the output cap: "max_tokens" or
	// "max_completion_tokens" (chat, completions, messages), "max_output_tokens" (responses);
	// "" when the body had none. MaxTokens is its logged value (0 when absent): a request
	// whose client cancelled it is sent with it, since the cancellation, not the cap, ended it.
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	MaxTokens      int    `json:"max_tokens,omitempty"`
	// Tools, ToolChoice and ResponseFormat are the body's JSON, compact, descriptions replaced
	// unless the trace keeps text (tool_choice holds only names and is kept); ParallelToolCalls
	// its flag. Each is in its API's own shape: Tools are chat's {"type":"function",
	// "function":{...}}, the Responses API's flat {"type":"function","name":...} or
	// Anthropic's {"name","description","input_schema"}; for the Responses API
	// ResponseFormat is the body's whole "text" object (its "format" is the structured output).
	Tools             json.RawMessage `json:"tools,omitempty"`
	ToolChoice        json.RawMessage `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls,omitempty"`
	ResponseFormat    json.RawMessage `json:"response_format,omitempty"`

	// Fields are the body's other members as logged, a compact JSON object in the logged key
	// order (schema text replaced as in Tools unless the trace keeps text): options a replay
	// sends back as they were without knowing them (top_k, min_p, logit_bias, the Responses
	// API's reasoning, truncation and store, Anthropic's thinking and metadata, embeddings'
	// encoding_format and dimensions, an engine's own extensions). Content (messages, prompt,
	// input, instructions, system), the model, streaming and what the reader types above are
	// never in it; nor is previous_response_id, whose chain the replay sends as full input.
	Fields json.RawMessage `json:"fields,omitempty"`

	// Inputs are an embeddings request's inputs' token counts, in order (PromptTokens is
	// their sum); InputList says the body's input was an array (a single string otherwise),
	// InputIDs that its inputs were token ids.
	Inputs    []int `json:"inputs,omitempty"`
	InputList bool  `json:"input_list,omitempty"`
	InputIDs  bool  `json:"input_ids,omitempty"`

	// CachedTokens are the prompt tokens the log says the engine read from its prefix cache
	// (usage's cached tokens, a gateway's cache-read count); nil when the log does not say.
	CachedTokens *int `json:"cached_tokens,omitempty"`

	// ReasoningTokens are the output tokens the log says the model spent thinking (OpenAI's
	// usage completion_tokens_details.reasoning_tokens, the Responses API's
	// output_tokens_details.reasoning_tokens, a gateway's reasoning count, or the logged
	// thinking text counted with the model's tokenizer); they are part of the record's
	// OutputTokens. nil when the log does not say; 0 when it says nothing was thought.
	ReasoningTokens *int `json:"reasoning_tokens,omitempty"`

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

// The APIs a request may be logged against and sent to (Options.API).
const (
	APIChat        = "chat"
	APICompletions = "completions"
	APIResponses   = "responses"
	APIMessages    = "messages"
	APIEmbeddings  = "embeddings"
)

// APIs lists them, in the order summaries show them.
var APIs = []string{APIChat, APICompletions, APIResponses, APIMessages, APIEmbeddings}

// ChatFamily reports whether api's prompts are conversations the engine renders through the
// model's chat template (chat, responses, messages), as against plain text (completions,
// embeddings, whose prompts get the tokenizer's specials).
func ChatFamily(api string) bool {
	return api == APIChat || api == APIResponses || api == APIMessages
}

// Streamed reports whether the request streamed its answer (the default when unknown).
func (o *Options) Streamed() bool { return o == nil || o.Stream == nil || *o.Stream }

// Structured reports whether the answer was constrained: tools offered or a response_format
// other than plain text. Such requests are not forced to their logged output length.
func (o *Options) Structured() bool {
	if o == nil {
		return false
	}
	if len(o.Tools) > 0 {
		return true
	}
	if o.API == APIResponses {
		return responsesStructured(o.ResponseFormat)
	}
	return len(o.ResponseFormat) > 0 && string(o.ResponseFormat) != `{"type":"text"}`
}

// responsesStructured reports whether a Responses API "text" object asks for a format other
// than plain text.
func responsesStructured(text json.RawMessage) bool {
	var t struct {
		Format *struct {
			Type string `json:"type"`
		} `json:"format"`
	}
	if len(text) == 0 || json.Unmarshal(text, &t) != nil || t.Format == nil {
		return false
	}
	return t.Format.Type != "" && t.Format.Type != "text"
}

// RanToLength reports whether the logged request stopped at its output cap: the only requests
// whose output length a replay forces (ignore_eos, min_tokens), since one that stopped on its
// own would otherwise run past where it ended.
func (o *Options) RanToLength() bool { return o != nil && o.FinishReason == "length" }
