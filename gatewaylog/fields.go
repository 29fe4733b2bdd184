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
