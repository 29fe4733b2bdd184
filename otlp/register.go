package otlp

import (
	"bytes"

	"github.com/llm-replay/replay/ingest"
)

// init registers --format otlp with ingest, with a sniffer for --format auto: a line that opens
// an ExportTraceServiceRequest.
func init() {
	ingest.Register(Format, Read)
	ingest.RegisterSniffer(Format, func(first []byte) bool {
		return bytes.HasPrefix(bytes.TrimLeft(first, " \t\ufeff"), []byte(`{"resourceSpans"`))
	})
}
