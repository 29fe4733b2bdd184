package otlp

import (
	"bytes"

	"github.com/llm-replay/replay/ingest"
)

// init registers --format otlp with ingest, with a sniffer for --format auto: a line that opens
// an ExportTraceServiceRequest.
func init() {
	ingest.Register(Format, Read)
	ingest.Describe(about)
	ingest.RegisterSniffer(Format, func(first []byte) bool {
		return bytes.HasPrefix(bytes.TrimLeft(first, " \t\ufeff"), []byte(`{"resourceSpans"`))
	})
}

// about is --format help's line for otlp.
var about = ingest.About{Format: Format,
	Reads: "OpenTelemetry GenAI spans (gen_ai.* attributes) as OTLP JSON lines, as the Collector's file exporter writes them",
	Example: `{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"1737710446847000000","attributes":[` +
		`{"key":"gen_ai.usage.input_tokens","value":{"intValue":"640"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"96"}}]}]}]}]}`}
