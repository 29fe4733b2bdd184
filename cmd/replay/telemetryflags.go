package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/runner"
)

// addTelemetry: the requests' W3C trace context and the export of their spans over OTLP.
func addTelemetry(fs *pflag.FlagSet, tc *runner.Telemetry) {
	fs.Var(&traceContextFlag{tc}, "trace-context", "on: every request carries a W3C traceparent header (sampled) whose trace id, derived from the run and the request id, is the row's trace_id, so the server's and gateways' spans join the row; off: no header, trace_id empty")
	fs.StringVar(&tc.OTLPEndpoint, "otlp-endpoint", "", "export one span per request (GenAI semantic conventions, the row's trace id, sent and done times) to this OTLP/HTTP receiver, e.g. http://127.0.0.1:4318 (/v1/traces is added unless the path ends with it); without it, the standard OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT turn export on; headers (credentials) only from OTEL_EXPORTER_OTLP_HEADERS")
}

// traceContextFlag is --trace-context on|off over Telemetry.NoTraceContext.
type traceContextFlag struct{ tc *runner.Telemetry }

func (f *traceContextFlag) String() string {
	if f.tc != nil && f.tc.NoTraceContext {
		return "off"
	}
	return "on"
}

func (f *traceContextFlag) Set(v string) error {
	switch v {
	case "on":
		f.tc.NoTraceContext = false
	case "off":
		f.tc.NoTraceContext = true
	default:
		return fmt.Errorf("want on or off, not %q", v)
	}
	return nil
}

func (f *traceContextFlag) Type() string { return "on|off" }
