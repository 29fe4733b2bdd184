package client

import "fmt"

// api_options.go holds which Options each API's body can carry. A logged request's options
// come from its own API's body, so a set option the API has no member for means the request
// is sent to another API than it was logged against (or the trace is wrong): sending it
// without that option would replay something else unseen, so it fails on this machine with
// the option's name instead.

// isSet reports whether the option of body key name is set.
func (o *Options) isSet(name string) bool {
	switch name {
	case "temperature":
		return o.Temperature != nil
	case "top_p":
		return o.TopP != nil
	case "n":
		return o.N != 0
	case "seed":
		return o.Seed != nil
	case "stop":
		return len(o.Stop) > 0
	case "presence_penalty":
		return o.PresencePenalty != nil
	case "frequency_penalty":
		return o.FrequencyPenalty != nil
	case "logprobs":
		return o.Logprobs != nil
	case "top_logprobs":
		return o.TopLogprobs != nil
	case "tools":
		return len(o.Tools) > 0
	case "tool_choice":
		return len(o.ToolChoice) > 0
	case "parallel_tool_calls":
		return o.ParallelToolCalls != nil
	case "response_format":
		return len(o.ResponseFormat) > 0
	case "stream":
		return o.Stream != nil && *o.Stream
	}
	return false
}

// absent fails on the first of names that is set: options api's body has no member for.
func (o *Options) absent(api apiKind, names ...string) error {
	if o == nil {
		return nil
	}
	for _, n := range names {
		if o.isSet(n) {
			return fmt.Errorf("client: option %s is set, but the %s API's body has no such field", n, api)
		}
	}
	return nil
}
