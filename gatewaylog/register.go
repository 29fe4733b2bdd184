package gatewaylog

import "github.com/llm-replay/replay/ingest"

// init registers every source's format with ingest, each with its sniffer for --format auto.
func init() {
	for _, s := range schemas {
		ingest.Register(s.Format, func(path string, opts ingest.Options) (ingest.Reader, error) {
			return Read(path, s, Options{Options: opts, Year: opts.LogYear})
		})
		ingest.RegisterSniffer(s.Format, s.Sniff)
	}
}
