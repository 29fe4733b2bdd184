// Package telemetry owns replay's side of OpenTelemetry tracing: each request's W3C trace
// context (tracecontext.go: a trace id derived from the run's id, the endpoint and the request
// id, so a row's trace_id finds the server's and gateways' spans of the request and the reverse)
// and one span per finished row, exported over OTLP/HTTP with the OpenTelemetry Go SDK
// (exporter.go: a run Output, batched on its own goroutine, never on the send path), named and
// attributed by the GenAI semantic conventions (span.go).
//
// It reads rows and nothing else of a run: it must not decide when requests go, build them or
// touch the run's files. Reading OTLP as a trace source is package otlp's.
package telemetry
