// Package otlp reads OpenTelemetry traces as a replay trace (--format otlp): OTLP JSON lines,
// one ExportTraceServiceRequest a line as the Collector's file exporter writes them
// (protobuf-JSON, decoded with the OTLP protobuf types and protojson). Each GenAI span (one
// with a gen_ai.* attribute) becomes a trace.Record: its start, token counts (the output's
// reasoning part too), model, session and request options (mapping.go); spans of other kinds
// are skipped and counted. It registers the format with ingest (ingest.Register, from init).
//
// It must not send requests or export spans (package telemetry exports replay's own), and
// keeps no prompt or response text a span may carry.
package otlp
