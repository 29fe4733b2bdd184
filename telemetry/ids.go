package telemetry

import (
	"context"
	"math/rand/v2"

	"go.opentelemetry.io/otel/trace"
)

// idsKey carries a span's ids to the ID generator: a row's span must have the trace and span
// ids its request's traceparent sent, not ids the SDK makes up.
type idsKey struct{}

type spanIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// rowIDs is the SDK's IDGenerator: the ids in the context when a row carries them, random ones
// for a row without (trace context off).
type rowIDs struct{}

func (rowIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if ids, ok := ctx.Value(idsKey{}).(spanIDs); ok {
		return ids.trace, ids.span
	}
	var t trace.TraceID
	var s trace.SpanID
	for !t.IsValid() || !s.IsValid() {
		putUint64s(t[:], rand.Uint64(), rand.Uint64())
		putUint64s(s[:], rand.Uint64())
	}
	return t, s
}

func (g rowIDs) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	_, s := g.NewIDs(ctx) // no span of ours has a parent of ours
	return s
}

// putUint64s fills b with vs' bytes, 8 each.
func putUint64s(b []byte, vs ...uint64) {
	for i, v := range vs {
		for j := range 8 {
			b[i*8+j] = byte(v >> (8 * j))
		}
	}
}
