package gatewaylog

// Helpers the schemas share to fill an Entry from a record's values.

// requiredInt is a token count that must be present.
func requiredInt(v Value) (int, error) {
	n, ok, err := v.Int()
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, v.Err("missing")
	}
	return n, nil
}

// firstString is the first of vs that is a non-empty string, "" when none is.
func firstString(vs ...Value) string {
	for _, v := range vs {
		if s, ok := v.String(); ok && s != "" {
			return s
		}
	}
	return ""
}

// cachedOf is the first of vs present as a count, -1 when none is.
func cachedOf(vs ...Value) (int, error) {
	for _, v := range vs {
		n, ok, err := v.Int()
		if err != nil {
			return -1, err
		}
		if ok {
			return n, nil
		}
	}
	return -1, nil
}

// reasoningOf is the first of vs present as a count, -1 when none is: the output tokens a
// record says were spent thinking. They are part of the output (out), so a count over it is
// an error naming its field.
func reasoningOf(out int, vs ...Value) (int, error) {
	for _, v := range vs {
		n, ok, err := v.Int()
		if err != nil {
			return -1, err
		}
		if !ok {
			continue
		}
		if n > out {
			return -1, v.Err("%d reasoning tokens, more than the %d output tokens they are part of", n, out)
		}
		return n, nil
	}
	return -1, nil
}

// usageReasoning is an OpenAI usage object's reasoning count: chat's and completions'
// completion_tokens_details.reasoning_tokens (OpenAI API reference, the chat completion
// object, https://platform.openai.com/docs/api-reference/chat/object), the Responses API's
// output_tokens_details.reasoning_tokens (the response object,
// https://platform.openai.com/docs/api-reference/responses/object); -1 when it has neither.
func usageReasoning(out int, usage Value) (int, error) {
	return reasoningOf(out, usage.Get("completion_tokens_details", "reasoning_tokens"), usage.Get("output_tokens_details", "reasoning_tokens"))
}

// samplingInto reads an OpenAI-shaped parameter object's output cap and sampling into e:
// max_tokens, max_completion_tokens or (the Responses API) max_output_tokens, temperature,
// top_p.
func samplingInto(e *Entry, params Value) error {
	for _, k := range []string{"max_tokens", "max_completion_tokens", "max_output_tokens"} {
		if params.Get(k).Exists() {
			return samplingFrom(e, params, k, "temperature", "top_p")
		}
	}
	return samplingFrom(e, params, "max_tokens", "temperature", "top_p")
}

// samplingFrom reads a cap and sampling under the body's own key names.
func samplingFrom(e *Entry, v Value, maxKey, tempKey, topPKey string) error {
	n, ok, err := v.Get(maxKey).Int()
	if err != nil {
		return err
	}
	if ok {
		e.MaxTokens = &n
	}
	return temperatureTopP(e, v, tempKey, topPKey)
}

// temperatureTopP reads the sampling temperature and top_p under the body's own key names.
func temperatureTopP(e *Entry, v Value, tempKey, topPKey string) error {
	for _, p := range []struct {
		key string
		to  **float64
	}{{tempKey, &e.Temperature}, {topPKey, &e.TopP}} {
		f, ok, err := v.Get(p.key).Float()
		if err != nil {
			return err
		}
		if ok {
			*p.to = &f
		}
	}
	return nil
}
