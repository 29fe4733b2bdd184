package otlp

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/llm-replay/replay/trace"
)

// fieldError is a bad attribute of a span, named by its key.
type fieldError struct {
	key string
	err error
}

func (e *fieldError) Error() string { return fmt.Sprintf("attribute %q: %v", e.key, e.err) }

var errMissing = errors.New("missing")

// request is a GenAI span read as a request: its start (Unix ns) and the record it becomes.
type request struct {
	start uint64
	rec   trace.Record
}

// readSpan reads s as a request; ok is false for a span that is no GenAI span.
func readSpan(s *tracepb.Span, k keys) (req request, ok bool, err error) {
	a, genAI := attrsOf(s.Attributes)
	if !genAI {
		return request{}, false, nil
	}
	if s.StartTimeUnixNano == 0 {
		return request{}, true, &fieldError{"startTimeUnixNano", errMissing}
	}
	req.start = s.StartTimeUnixNano
	r := &req.rec
	v, key := a.first(k["prompt_tokens"])
	if v == nil {
		return req, true, &fieldError{k["prompt_tokens"][0], errMissing}
	}
	if r.PromptTokens, err = count(v); err != nil {
		return req, true, &fieldError{key, err}
	}
	if v, key = a.first(k["output_tokens"]); v != nil {
		if r.OutputTokens, err = count(v); err != nil {
			return req, true, &fieldError{key, err}
		}
	}
	if v, _ = a.first(k["model"]); v != nil {
		r.Model = v.GetStringValue()
	}
	if v, _ = a.first(k["session_id"]); v != nil {
		r.SessionID = text(v)
	}
	if r.Options, err = options(a); err != nil {
		return req, true, err
	}
	return req, true, reasoning(a, k, r)
}

// reasoning reads the span's reasoning output tokens into r's options (made for it when the
// span carries no other option): part of the output, so never more than it.
func reasoning(a attrs, k keys, r *trace.Record) error {
	v, key := a.first(k["reasoning_tokens"])
	if v == nil {
		return nil
	}
	n, err := count(v)
	if err != nil {
		return &fieldError{key, err}
	}
	if n > r.OutputTokens {
		return &fieldError{key, fmt.Errorf("%d reasoning tokens, more than the %d output tokens they are part of", n, r.OutputTokens)}
	}
	if r.Options == nil {
		r.Options = &trace.Options{}
	}
	r.Options.ReasoningTokens = &n
	return nil
}

// options are the span's request options, nil when it carries none.
func options(a attrs) (*trace.Options, error) {
	o := &trace.Options{API: apiOf(a[keyOperation].GetStringValue())}
	set := o.API != ""
	if v := a[keyMaxTokens]; v != nil {
		n, err := count(v)
		if err != nil {
			return nil, &fieldError{keyMaxTokens, err}
		}
		o.MaxTokensField, o.MaxTokens, set = "max_tokens", n, true
	}
	for key, p := range map[string]**float64{keyTemperature: &o.Temperature, keyTopP: &o.TopP} {
		if v := a[key]; v != nil {
			f, err := number(v)
			if err != nil {
				return nil, &fieldError{key, err}
			}
			*p, set = &f, true
		}
	}
	if v, ok := a[keyStream].GetValue().(*commonpb.AnyValue_BoolValue); ok {
		b := v.BoolValue
		o.Stream, set = &b, true
	}
	if vs := a[keyFinishReasons].GetArrayValue().GetValues(); len(vs) > 0 {
		o.FinishReason, set = vs[0].GetStringValue(), true
	}
	if !set {
		return nil, nil
	}
	return o, nil
}

// count is a token count: an integer (or an integral double, or a numeric string, as some
// instrumentations write them) from 0 up.
func count(v *commonpb.AnyValue) (int, error) {
	f, err := number(v)
	switch {
	case err != nil:
		return 0, err
	case f < 0 || f != math.Trunc(f) || f > math.MaxInt32:
		return 0, fmt.Errorf("not a token count: %v", f)
	}
	return int(f), nil
}

func number(v *commonpb.AnyValue) (float64, error) {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_IntValue:
		return float64(x.IntValue), nil
	case *commonpb.AnyValue_DoubleValue:
		if math.IsNaN(x.DoubleValue) || math.IsInf(x.DoubleValue, 0) {
			return 0, fmt.Errorf("not a number: %v", x.DoubleValue)
		}
		return x.DoubleValue, nil
	case *commonpb.AnyValue_StringValue:
		f, err := strconv.ParseFloat(x.StringValue, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("not a number: %q", x.StringValue)
		}
		return f, nil
	}
	return 0, fmt.Errorf("not a number: %v", v)
}

// text is a string attribute, or an integer one written as text (a session id may be either).
func text(v *commonpb.AnyValue) string {
	if n, ok := v.GetValue().(*commonpb.AnyValue_IntValue); ok {
		return strconv.FormatInt(n.IntValue, 10)
	}
	return v.GetStringValue()
}
