package client

import (
	"encoding/json"
	"fmt"
	"strconv"

	openai "github.com/sashabaranov/go-openai"
)

// Options are one request's own body fields beyond its prompt and length, sent exactly as
// given: a field that is set is sent with that value, one that is nil or empty is not sent.
// They let a replay send each request as its client once did (sampling, stop, tools,
// structured output, n, non-streaming, the body's other members), and come from the trace
// (runner maps them). Each API sends the fields its body has (api_*.go); a field set for an
// API whose body has no such member (stop on the Responses API, seed on the Messages API)
// fails the request on this machine with an error naming it, rather than be dropped unseen.
//
// On chat and completions, fields go-openai's request types encode faithfully go through
// them (n, stop, seed, the output cap's field, logprobs true, top_logprobs above 0, stream).
// The rest are spliced into the body as raw JSON: go-openai's float32 fields are omitempty,
// so a temperature of 0 (the most common logged value) would vanish and 0.1 would be
// rounded; logprobs false and top_logprobs 0 would vanish too; parallel_tool_calls is not a
// completions field of go-openai's; and tools, tool_choice and response_format are sent as
// the trace holds them, byte for byte, because go-openai's typed re-encoding reorders the
// keys of JSON schemas, which changes what the chat template renders for them and so the
// prompt's length.
type Options struct {
	// Stream false asks for one JSON answer instead of an SSE stream; nil streams.
	Stream *bool
	// Sampling.
	Temperature *float64
	TopP        *float64
	N           int // 0: not sent
	Seed        *int64
	Stop        []string
	// StopString sends a single Stop as a JSON string, not a list of one, on chat and
	// completions: the log had it so (both forms are the OpenAI API's).
	StopString       bool
	PresencePenalty  *float64
	FrequencyPenalty *float64
	// Logprobs and TopLogprobs are chat's. On completions, whose logprobs is a count,
	// Logprobs true sends logprobs: TopLogprobs (0 when nil) and TopLogprobs is not sent.
	Logprobs    *bool
	TopLogprobs *int
	// MaxTokensField is the field Request.MaxTokens travels in on chat and completions:
	// "max_completion_tokens", or "max_tokens" (also for ""). The Responses API's cap is
	// always max_output_tokens and the Messages API's max_tokens, whatever it says.
	MaxTokensField string
	// Tools, ToolChoice and ResponseFormat are raw JSON, sent as they are, each in its API's
	// own shape. On the Responses API ResponseFormat is the body's whole "text" object (its
	// "format" is the structured output) and is sent as "text".
	Tools             json.RawMessage
	ToolChoice        json.RawMessage
	ResponseFormat    json.RawMessage
	ParallelToolCalls *bool
	// Fields are the body's other members as logged, a JSON object (top_k, logit_bias, the
	// Responses API's reasoning and truncation, Anthropic's thinking and metadata,
	// embeddings' encoding_format and dimensions...): its members are spliced into the body
	// raw, in their order, after those the encoder writes. A member whose key the body
	// already has is an error naming it; Config.ExtraBody still merges last and wins.
	Fields json.RawMessage
}

// MaxCompletionTokens is Options.MaxTokensField's value for the newer output cap field.
const MaxCompletionTokens = "max_completion_tokens"

// optionKeys are the body keys Options may set, beside those go-openai emits for every request:
// an ExtraBody key among them needs a merge, not a splice (emittedKeys).
var optionKeys = []string{"temperature", "top_p", "n", "seed", "stop", "presence_penalty",
	"frequency_penalty", "logprobs", "top_logprobs", MaxCompletionTokens, "tools", "tool_choice",
	"parallel_tool_calls", "response_format", "max_output_tokens", "text", "stop_sequences"}

// streamed reports whether the answer is asked for as an SSE stream (the default).
func (o *Options) streamed() bool { return o == nil || o.Stream == nil || *o.Stream }

// applyChat sets the fields go-openai's chat request encodes faithfully.
func (o *Options) applyChat(r *openai.ChatCompletionRequest) {
	if o == nil {
		return
	}
	r.N, r.Stop, r.Seed = o.N, o.listStop(), intPtr(o.Seed)
	if o.Logprobs != nil && *o.Logprobs {
		r.LogProbs = true
	}
	if o.TopLogprobs != nil && *o.TopLogprobs > 0 {
		r.TopLogProbs = *o.TopLogprobs
	}
	if o.MaxTokensField == MaxCompletionTokens {
		//lint:ignore SA1019 the logged request used the other field: it is not sent
		r.MaxCompletionTokens, r.MaxTokens = r.MaxTokens, 0
	}
}

// applyCompletions sets the fields go-openai's completions request encodes faithfully.
func (o *Options) applyCompletions(r *openai.CompletionRequest) {
	if o == nil {
		return
	}
	r.N, r.Stop, r.Seed = o.N, o.listStop(), intPtr(o.Seed)
	if o.MaxTokensField == MaxCompletionTokens {
		r.MaxTokens = 0 // sent raw (rawFields): go-openai's completions request has no such field
	}
}

// listStop is Stop for go-openai's list field: nil when it goes as one string (rawFields).
func (o *Options) listStop() []string {
	if o.StopString && len(o.Stop) == 1 {
		return nil
	}
	return o.Stop
}

// intPtr converts a seed for go-openai, which holds it as *int.
func intPtr(v *int64) *int {
	if v == nil {
		return nil
	}
	i := int(*v)
	return &i
}

// rawFields is `,"k":v,...` for the set fields of chat and completions that go-openai would
// drop or alter (see Options), in a fixed order; maxTokens is the cap the request sends, for
// completions' max_completion_tokens. A value that is not JSON (a NaN, broken raw JSON) is an
// error.
func (o *Options) rawFields(chatAPI bool, maxTokens int) ([]byte, error) {
	if o == nil {
		return nil, nil
	}
	b, err := appendFloats(nil, floatOpt{"temperature", o.Temperature}, floatOpt{"top_p", o.TopP},
		floatOpt{"presence_penalty", o.PresencePenalty}, floatOpt{"frequency_penalty", o.FrequencyPenalty})
	if err != nil {
		return nil, err
	}
	if o.StopString && len(o.Stop) == 1 {
		v, err := marshal(o.Stop[0])
		if err != nil {
			return nil, fmt.Errorf("client: option stop: %w", err)
		}
		b = appendRaw(b, "stop", v)
	}
	b = o.rawLogprobs(b, chatAPI)
	if !chatAPI && o.MaxTokensField == MaxCompletionTokens && maxTokens > 0 {
		b = appendRaw(b, MaxCompletionTokens, strconv.AppendInt(nil, int64(maxTokens), 10))
	}
	if o.ParallelToolCalls != nil {
		// Raw: go-openai's completions request has no such field, and a false must be sent
		// as it was logged.
		b = appendRaw(b, "parallel_tool_calls", strconv.AppendBool(nil, *o.ParallelToolCalls))
	}
	return appendRawJSON(b, rawOpt{"tools", o.Tools}, rawOpt{"tool_choice", o.ToolChoice},
		rawOpt{"response_format", o.ResponseFormat})
}

// floatOpt and rawOpt are an option's key and value, for appendFloats and appendRawJSON.
type (
	floatOpt struct {
		key string
		v   *float64
	}
	rawOpt struct {
		key string
		v   json.RawMessage
	}
)

// appendFloats appends the set ones of fs, each as encoding/json writes a float64: the
// shortest text that reads back as the same value.
func appendFloats(b []byte, fs ...floatOpt) ([]byte, error) {
	for _, f := range fs {
		if f.v == nil {
			continue
		}
		enc, err := json.Marshal(*f.v)
		if err != nil {
			return nil, fmt.Errorf("client: option %s: %w", f.key, err)
		}
		b = appendRaw(b, f.key, enc)
	}
	return b, nil
}

// appendRawJSON appends the set ones of rs, checking that each is JSON.
func appendRawJSON(b []byte, rs ...rawOpt) ([]byte, error) {
	for _, r := range rs {
		if len(r.v) == 0 {
			continue
		}
		if !json.Valid(r.v) {
			return nil, fmt.Errorf("client: option %s is not valid JSON", r.key)
		}
		b = appendRaw(b, r.key, r.v)
	}
	return b, nil
}

// rawLogprobs appends the logprobs fields go-openai would drop: chat's logprobs false and
// top_logprobs 0, and completions' count.
func (o *Options) rawLogprobs(b []byte, chatAPI bool) []byte {
	if !chatAPI {
		if o.Logprobs != nil && *o.Logprobs {
			n := 0
			if o.TopLogprobs != nil {
				n = *o.TopLogprobs
			}
			b = appendRaw(b, "logprobs", strconv.AppendInt(nil, int64(n), 10))
		}
		return b
	}
	if o.Logprobs != nil && !*o.Logprobs {
		b = appendRaw(b, "logprobs", []byte("false"))
	}
	if o.TopLogprobs != nil && *o.TopLogprobs <= 0 {
		b = appendRaw(b, "top_logprobs", strconv.AppendInt(nil, int64(*o.TopLogprobs), 10))
	}
	return b
}

// appendRaw appends `,"key":v`.
func appendRaw(b []byte, key string, v []byte) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return append(b, v...)
}

// spliceFields inserts raw (`,"k":v,...`) before the closing brace of the object b, in b's
// own buffer (sized for it by the caller).
func spliceFields(b, raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return b, nil
	}
	if len(b) < 2 || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("client: encoding request: body is not an object")
	}
	if len(b) == 2 {
		raw = raw[1:] // "{}": no comma before the first field
	}
	return append(append(b[:len(b)-1], raw...), '}'), nil
}
