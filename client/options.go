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
// structured output, n, non-streaming), and come from the trace (runner maps them).
//
// Fields go-openai's request types encode faithfully go through them (n, stop, seed, the
// output cap's field, logprobs true, top_logprobs above 0, parallel_tool_calls, stream).
// The rest are spliced into the body as raw JSON: go-openai's float32 fields are omitempty,
// so a temperature of 0 (the most common logged value) would vanish and 0.1 would be
// rounded; logprobs false and top_logprobs 0 would vanish too; and tools, tool_choice and
// response_format are sent as the trace holds them, byte for byte, because go-openai's
// typed re-encoding reorders the keys of JSON schemas, which changes what the chat template
// renders for them and so the prompt's length.
type Options struct {
	// Stream false asks for one JSON answer instead of an SSE stream; nil streams.
	Stream *bool
	// Sampling.
	Temperature      *float64
	TopP             *float64
	N                int // 0: not sent
	Seed             *int64
	Stop             []string
	PresencePenalty  *float64
	FrequencyPenalty *float64
	// Logprobs and TopLogprobs are chat's. On completions, whose logprobs is a count,
	// Logprobs true sends logprobs: TopLogprobs (0 when nil) and TopLogprobs is not sent.
	Logprobs    *bool
	TopLogprobs *int
	// MaxTokensField is the field Request.MaxTokens travels in: "max_completion_tokens", or
	// "max_tokens" (also for "").
	MaxTokensField string
	// Tools, ToolChoice and ResponseFormat are raw JSON, sent as they are.
	Tools             json.RawMessage
	ToolChoice        json.RawMessage
	ResponseFormat    json.RawMessage
	ParallelToolCalls *bool
}

// MaxCompletionTokens is Options.MaxTokensField's value for the newer output cap field.
const MaxCompletionTokens = "max_completion_tokens"

// optionKeys are the body keys Options may set, beside those go-openai emits for every request:
// an ExtraBody key among them needs a merge, not a splice (emittedKeys).
var optionKeys = []string{"temperature", "top_p", "n", "seed", "stop", "presence_penalty",
	"frequency_penalty", "logprobs", "top_logprobs", MaxCompletionTokens, "tools", "tool_choice",
	"parallel_tool_calls", "response_format"}

// streamed reports whether the answer is asked for as an SSE stream (the default).
func (o *Options) streamed() bool { return o == nil || o.Stream == nil || *o.Stream }

// applyChat sets the fields go-openai's chat request encodes faithfully.
func (o *Options) applyChat(r *openai.ChatCompletionRequest) {
	if o == nil {
		return
	}
	r.N, r.Stop, r.Seed = o.N, o.Stop, intPtr(o.Seed)
	if o.Logprobs != nil && *o.Logprobs {
		r.LogProbs = true
	}
	if o.TopLogprobs != nil && *o.TopLogprobs > 0 {
		r.TopLogProbs = *o.TopLogprobs
	}
	if o.ParallelToolCalls != nil {
		r.ParallelToolCalls = *o.ParallelToolCalls
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
	r.N, r.Stop, r.Seed = o.N, o.Stop, intPtr(o.Seed)
	if o.MaxTokensField == MaxCompletionTokens {
		r.MaxTokens = 0 // sent raw (rawFields): go-openai's completions request has no such field
	}
}

// intPtr converts a seed for go-openai, which holds it as *int.
func intPtr(v *int64) *int {
	if v == nil {
		return nil
	}
	i := int(*v)
	return &i
}

// rawFields is `,"k":v,...` for the set fields go-openai would drop or alter (see Options),
// in a fixed order; maxTokens is the cap the request sends, for completions'
// max_completion_tokens. A value that is not JSON (a NaN, broken raw JSON) is an error.
func (o *Options) rawFields(chatAPI bool, maxTokens int) ([]byte, error) {
	if o == nil {
		return nil, nil
	}
	var b []byte
	for _, f := range [...]struct {
		key string
		v   *float64
	}{{"temperature", o.Temperature}, {"top_p", o.TopP}, {"presence_penalty", o.PresencePenalty}, {"frequency_penalty", o.FrequencyPenalty}} {
		if f.v == nil {
			continue
		}
		v, err := json.Marshal(*f.v)
		if err != nil {
			return nil, fmt.Errorf("client: option %s: %w", f.key, err)
		}
		b = appendRaw(b, f.key, v)
	}
	b = o.rawLogprobs(b, chatAPI)
	if !chatAPI && o.MaxTokensField == MaxCompletionTokens && maxTokens > 0 {
		b = appendRaw(b, MaxCompletionTokens, strconv.AppendInt(nil, int64(maxTokens), 10))
	}
	for _, f := range [...]struct {
		key string
		v   json.RawMessage
	}{{"tools", o.Tools}, {"tool_choice", o.ToolChoice}, {"response_format", o.ResponseFormat}} {
		if len(f.v) == 0 {
			continue
		}
		if !json.Valid(f.v) {
			return nil, fmt.Errorf("client: option %s is not valid JSON", f.key)
		}
		b = appendRaw(b, f.key, f.v)
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
