package client

import "encoding/hex"

// TraceParent is a request's W3C Trace Context (https://www.w3.org/TR/trace-context/, version
// 00), sent as the traceparent header so the server's and gateways' spans join the sender's:
// the trace the request belongs to and the span that is its parent. The zero value sends no
// header.
type TraceParent struct {
	TraceID [16]byte
	SpanID  [8]byte
}

// traceParentLen is the header value's length: "00-" 32 hex "-" 16 hex "-01".
const traceParentLen = 3 + 32 + 1 + 16 + 3

// IsZero reports whether t carries no trace (the spec's all-zero trace id is invalid).
func (t *TraceParent) IsZero() bool { return t.TraceID == [16]byte{} }

// appendValue appends the header's value, sampled (flags 01): the sender records every
// request's span.
func (t *TraceParent) appendValue(b []byte) []byte {
	b = append(b, "00-"...)
	b = hex.AppendEncode(b, t.TraceID[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, t.SpanID[:])
	return append(b, "-01"...)
}

// String is the header's value, "" for the zero TraceParent.
func (t TraceParent) String() string {
	if t.IsZero() {
		return ""
	}
	var buf [traceParentLen]byte
	return string(t.appendValue(buf[:0]))
}
