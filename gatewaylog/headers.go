package gatewaylog

import (
	"slices"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// headers.go reads the request headers a gateway's record holds, for --headers logged and
// --slo-class-by header: LiteLLM's StandardLoggingPayload metadata.requester_custom_headers
// (the client's x- headers: docs.litellm.ai "StandardLoggingPayload Specification",
// StandardLoggingMetadata), Kong's log serializer request.headers (each a string or, for a
// repeated header, a list of strings: Kong's "Log Serializer" reference). Names are lower
// case; a credential (trace.SecretHeader) is dropped as it is read.

// headersOf reads v, an object of header names to a value or a list of values (joined by
// ", " as HTTP joins repeated fields), in name order; nil when v holds none.
func headersOf(v Value) []trace.Header {
	var out []trace.Header
	for _, k := range v.Keys() {
		name := strings.ToLower(k)
		if trace.SecretHeader(name) {
			continue
		}
		hv := v.Get(k)
		if s, ok := hv.String(); ok {
			out = append(out, trace.Header{Name: name, Value: s})
			continue
		}
		var vals []string
		for i := range hv.Len() {
			if s, ok := hv.Index(i).String(); ok {
				vals = append(vals, s)
			}
		}
		if len(vals) > 0 {
			out = append(out, trace.Header{Name: name, Value: strings.Join(vals, ", ")})
		}
	}
	slices.SortFunc(out, func(a, b trace.Header) int { return strings.Compare(a.Name, b.Name) })
	return out
}
