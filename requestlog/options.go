package requestlog

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/llm-replay/replay/trace"
)

// bodyFields are the request body fields the reader knows: what it counts (model, messages,
// prompt, max_tokens, user) and the options it carries into trace.Options. Any other field is
// reported by name (Counts.UnknownFields): a replay does not send it, and the user should know.
var bodyFields = map[string]bool{
	"model": true, "messages": true, "prompt": true, "user": true,
	"max_tokens": true, "max_completion_tokens": true, "stream": true, "stream_options": true,
	"temperature": true, "top_p": true, "n": true, "seed": true, "stop": true,
	"presence_penalty": true, "frequency_penalty": true, "logprobs": true, "top_logprobs": true,
	"tools": true, "tool_choice": true, "parallel_tool_calls": true, "response_format": true,
}

// rawOptionFields are the options whose JSON is carried as it was logged (key order
// included): they are read from the body's text, not its decoded map (see rawMembers).
var rawOptionFields = []string{"tools", "tool_choice", "response_format"}

// parseOptions reads the body's scalar options into a new trace.Options (the JSON ones,
// tools, tool_choice and response_format, are filled from the body's text later) and lists
// the body's unknown fields. name is the body's field name, for errors.
func parseOptions(req map[string]any, name string, isChat bool) (*trace.Options, []string, error) {
	o := &trace.Options{API: "completions"}
	if isChat {
		o.API = "chat"
	}
	var unknown []string
	for k := range req {
		if !bodyFields[k] {
			unknown = append(unknown, k)
		}
	}
	f := optionReader{req: req, name: name}
	o.Stream = f.boolean("stream")
	if o.Stream == nil {
		// The API's default: a body without "stream" was answered in one piece. Left unset,
		// the replay would stream it (trace.Options.Streamed's default for a trace that does
		// not say), and measure it in the wrong population.
		o.Stream = new(bool)
	}
	o.Temperature, o.TopP = f.float("temperature"), f.float("top_p")
	o.PresencePenalty, o.FrequencyPenalty = f.float("presence_penalty"), f.float("frequency_penalty")
	o.Seed = f.integer("seed")
	o.ParallelToolCalls = f.boolean("parallel_tool_calls")
	if n := f.integer("n"); n != nil {
		o.N = int(*n)
	}
	o.Stop = f.stop()
	f.logprobs(o, isChat)
	for _, k := range []string{"max_tokens", "max_completion_tokens"} { // the latter wins, as in vLLM
		if req[k] != nil {
			o.MaxTokensField = k
		}
	}
	unknown = append(unknown, f.streamOptions(o)...)
	return o, unknown, f.err
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

// stop reads stop as a list: a string is a list of one.
func (f *optionReader) stop() []string {
	switch v := f.req["stop"].(type) {
	case nil:
		return nil
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, s := range v {
			str, ok := s.(string)
			if !ok {
				f.fail("stop", "a list holding something other than strings")
				return nil
			}
			out = append(out, str)
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	f.fail("stop", "not a string or a list of strings")
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

// streamOptions reads stream_options.include_usage and lists its other members as unknown
// fields ("stream_options.NAME").
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
