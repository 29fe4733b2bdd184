package gatewaylog

import "github.com/llm-replay/replay/ingest"

// init registers every source's format with ingest, each with its sniffer for --format auto
// and what --format help says of it.
func init() {
	for _, s := range schemas {
		ingest.Register(s.Format, func(path string, opts ingest.Options) (ingest.Reader, error) {
			return Read(path, s, Options{Options: opts, Year: opts.LogYear})
		})
		ingest.RegisterSniffer(s.Format, s.Sniff)
		ingest.Describe(ingest.About{Format: s.Format, Reads: s.Reads, Example: s.Example})
	}
}
