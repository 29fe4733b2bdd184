package runner

import (
	"time"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/telemetry"
)

// Telemetry is a run's OpenTelemetry settings: each request's W3C traceparent and, when an
// OTLP endpoint is given (or set by the standard OTEL_EXPORTER_OTLP_* variables), one span per
// finished row exported to it (package telemetry).
type Telemetry struct {
	// NoTraceContext leaves the traceparent header out, and the rows' trace_id empty
	// (--trace-context off).
	NoTraceContext bool
	// OTLPEndpoint is --otlp-endpoint: the receiver's OTLP/HTTP URL; "" exports only when the
	// standard variables name an endpoint.
	OTLPEndpoint string
	// RunID names the run in its trace ids and the spans' resource; "" draws a fresh one, so a
	// resumed or repeated run's traces never collide with the first's.
	RunID string
}

// openTelemetry is the leg's trace-context derivation (nil when off) and its span exporter
// (nil when no endpoint is set), a run Output.
func openTelemetry(cfg Config, tg *target) (*telemetry.Traces, *telemetry.Exporter, error) {
	tc := cfg.Telemetry
	var traces *telemetry.Traces
	if !tc.NoTraceContext {
		traces = telemetry.NewTraces(tc.RunID, tg.label)
	}
	if !telemetry.Enabled(tc.OTLPEndpoint) {
		return traces, nil, nil
	}
	spans, err := telemetry.New(telemetry.Config{Endpoint: tc.OTLPEndpoint, RunID: tc.RunID, Shard: shardLabel(cfg),
		Version: cfg.Version, Model: tg.model, Stderr: cfg.Stderr})
	if err != nil {
		return nil, nil, err
	}
	return traces, spans, nil
}

// traceContext sets attempt's traceparent on req and tells the exporter which wall-clock
// instant the row's offsets count from (the phase's clock, moved as the row will be for a
// resumed run).
func (s *sender) traceContext(req *client.Request, traceID [16]byte, attempt int, warmup bool, clock *scheduler.Clock) {
	if s.traces != nil {
		req.Trace = client.TraceParent{TraceID: traceID, SpanID: telemetry.SpanID(traceID, attempt)}
	}
	if s.spans != nil {
		s.spans.SetOrigin(warmup, clock.Start().Add(-time.Duration(s.shift)))
	}
}
