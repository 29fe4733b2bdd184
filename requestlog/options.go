package requestlog

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/llm-replay/replay/trace"
)

// Which body members go where, per API. Content (what is counted) and the model and
// streaming members are read for themselves and never carried in Options.Fields; nor is
// previous_response_id, whose chain the reader resolves into the conversation. typedFields
// are the options trace.Options types. Every other member is carried as logged in
// Options.Fields (Counts.CarriedFields).
var (
	contentFields = map[string]map[string]bool{
		trace.APIChat:        {"messages": true},
		trace.APICompletions: {"prompt": true},
		trace.APIResponses:   {"input": true, "instructions": true, "previous_response_id": true},
		trace.APIMessages:    {"messages": true, "system": true},
		trace.APIEmbeddings:  {"input": true},
	}
	commonFields = map[string]bool{"model": true, "stream": true, "stream_options": true}
	// chatTyped are chat's and completions' typed options (one set: vLLM takes either's in
	// both, and a completions logprobs is read as its count).
	chatTyped = map[string]bool{
		"max_tokens": true, "max_completion_tokens": true,
		"temperature": true, "top_p": true, "n": true, "seed": true, "stop": true,
		"presence_penalty": true, "frequency_penalty": true, "logprobs": true, "top_logprobs": true,
		"tools": true, "tool_choice": true, "parallel_tool_calls": true, "response_format": true,
	}
	typedFields = map[string]map[string]bool{
		trace.APIChat:        chatTyped,
		trace.APICompletions: chatTyped,
		trace.APIResponses: {"max_output_tokens": true, "temperature": true, "top_p": true, "top_logprobs": true,
			"tools": true, "tool_choice": true, "parallel_tool_calls": true, "text": true},
		trace.APIMessages: {"max_tokens": true, "stop_sequences": true, "temperature": true, "top_p": true,
			"tools": true, "tool_choice": true},
		trace.APIEmbeddings: {},
	}
)

// carried reports whether body member k of an api request goes to Options.Fields.
func carried(api, k string) bool {
	return !commonFields[k] && !contentFields[api][k] && !typedFields[api][k]
}

// rawOptionFields are the options whose JSON is carried as it was logged (key order
// included): they are read from the body's text, not its decoded map (see rawOptions).
var rawOptionFields = []string{"tools", "tool_choice", "response_format", "text"}

// bodyOptions are what parseOptions found beside the typed options: the members carried in
// Options.Fields and those a replay still drops, by name.
type bodyOptions struct {
	carried, dropped []string
}

// parseOptions reads the body's typed scalar options of an api request into a new
// trace.Options (the JSON ones, tools, tool_choice, response_format or text, and the carried
// fields are filled from the body's text later) and names the members carried and dropped.
// name is the body's field name, for errors.
func parseOptions(req map[string]any, name, api string) (*trace.Options, bodyOptions, error) {
	o := &trace.Options{API: api}
	var b bodyOptions
	for k := range req {
		if carried(api, k) {
			b.carried = append(b.carried, k)
		}
	}
	f := optionReader{req: req, name: name}
	o.Stream = f.boolean("stream")
	if o.Stream == nil {
		// The APIs' default: a body without "stream" was answered in one piece. Left unset,
		// the replay would stream it (trace.Options.Streamed's default for a trace that does
		// not say), and measure it in the wrong population.
		o.Stream = new(bool)
	}
	switch api {
	case trace.APIChat, trace.APICompletions:
		f.chatOptions(o, api == trace.APIChat, &b)
	case trace.APIResponses:
		o.Temperature, o.TopP = f.float("temperature"), f.float("top_p")
		o.ParallelToolCalls = f.boolean("parallel_tool_calls")
		if n := f.integer("top_logprobs"); n != nil {
			k := int(*n)
			o.TopLogprobs = &k
		}
		f.maxTokens(o, "max_output_tokens")
	case trace.APIMessages:
		o.Temperature, o.TopP = f.float("temperature"), f.float("top_p")
		o.Stop = f.stop("stop_sequences")
		f.maxTokens(o, "max_tokens")
	}
	if api != trace.APIEmbeddings {
		b.dropped = append(b.dropped, f.streamOptions(o)...)
	}
	return o, b, f.err
}

// chatOptions reads chat's and completions' typed options. Of max_tokens and
// max_completion_tokens the latter wins, as in vLLM; the other, when both are there, is
// dropped.
func (f *optionReader) chatOptions(o *trace.Options, isChat bool, b *bodyOptions) {
	o.Temperature, o.TopP = f.float("temperature"), f.float("top_p")
	o.PresencePenalty, o.FrequencyPenalty = f.float("presence_penalty"), f.float("frequency_penalty")
	o.Seed = f.integer("seed")
	o.ParallelToolCalls = f.boolean("parallel_tool_calls")
	if n := f.integer("n"); n != nil {
		o.N = int(*n)
	}
	o.Stop = f.stop("stop")
	_, o.StopString = f.req["stop"].(string)
	f.logprobs(o, isChat)
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		if f.req[k] != nil {
			if o.MaxTokensField != "" {
				b.dropped = append(b.dropped, o.MaxTokensField)
			}
			f.maxTokens(o, k)
		}
	}
}

// maxTokens reads the output cap from member k, when the body has it.
func (f *optionReader) maxTokens(o *trace.Options, k string) {
	n := f.integer(k)
	if n == nil {
		return
	}
	if *n < 0 || *n > math.MaxInt32 {
		f.fail(k, "not a plausible token count: %d", *n)
		return
	}
	o.MaxTokensField, o.MaxTokens = k, int(*n)
}

// optionReader reads typed option fields of a body, keeping the first error.
type optionReader struct {
	req  map[string]any
	name string
	err  error
}

func (f *optionReader) fail(field, format string, args ...any) {
	if f.err == nil {
		f.err = bad(f.name+"."+field, format, args...)
	}
}

func (f *optionReader) boolean(k string) *bool {
	switch v := f.req[k].(type) {
	case nil:
		return nil
	case bool:
		return &v
	}
	f.fail(k, "not a boolean")
	return nil
}

func (f *optionReader) float(k string) *float64 {
	v, ok := f.req[k].(json.Number)
	if !ok {
		if f.req[k] != nil {
			f.fail(k, "not a number")
		}
		return nil
	}
	x, err := strconv.ParseFloat(v.String(), 64)
	if err != nil || math.IsInf(x, 0) {
		f.fail(k, "not a finite number: %s", v)
		return nil
	}
	return &x
}

func (f *optionReader) integer(k string) *int64 {
	v, ok := f.req[k].(json.Number)
	if !ok {
		if f.req[k] != nil {
			f.fail(k, "not an integer")
		}
		return nil
	}
	x, err := strconv.ParseInt(v.String(), 10, 64)
	if err != nil {
		f.fail(k, "not an integer: %s", v)
		return nil
	}
	return &x
}

// stop reads member k (stop, Anthropic's stop_sequences) as a list: a string is a list of one.
func (f *optionReader) stop(k string) []string {
	switch v := f.req[k].(type) {
	case nil:
		return nil
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, s := range v {
			str, ok := s.(string)
			if !ok {
				f.fail(k, "a list holding something other than strings")
				return nil
			}
			out = append(out, str)
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	f.fail(k, "not a string or a list of strings")
	return nil
}

// logprobs reads chat's logprobs (a boolean) and top_logprobs, or a completions request's
// logprobs (the number of alternatives per token, 0 meaning the chosen token's only), which
// is logprobs true with that many top_logprobs.
func (f *optionReader) logprobs(o *trace.Options, isChat bool) {
	if n, ok := f.req["logprobs"].(json.Number); ok && !isChat {
		k, err := strconv.Atoi(n.String())
		if err != nil || k < 0 {
			f.fail("logprobs", "not a count of log probabilities: %s", n)
			return
		}
		yes := true
		o.Logprobs, o.TopLogprobs = &yes, &k
		return
	}
	o.Logprobs = f.boolean("logprobs")
	if n := f.integer("top_logprobs"); n != nil {
		k := int(*n)
		o.TopLogprobs = &k
	}
}

// streamOptions reads stream_options.include_usage and lists its other members, which a
// replay does not send, as dropped fields ("stream_options.NAME").
func (f *optionReader) streamOptions(o *trace.Options) []string {
	v := f.req["stream_options"]
	if v == nil {
		return nil
	}
	so, ok := v.(map[string]any)
	if !ok {
		f.fail("stream_options", "not an object")
		return nil
	}
	var unknown []string
	for k, x := range so {
		if k != "include_usage" {
			unknown = append(unknown, "stream_options."+k)
			continue
		}
		if b, ok := x.(bool); ok {
			o.IncludeUsage = &b
		} else if x != nil {
			f.fail("stream_options.include_usage", "not a boolean")
		}
	}
	return unknown
}
