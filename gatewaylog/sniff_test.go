package gatewaylog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSniffStrict: no line of one source's fixture is claimed by another source's sniffer, so
// --format auto cannot take one log for another whichever line a file starts with.
func TestSniffStrict(t *testing.T) {
	for _, own := range schemas {
		for _, path := range fixtures(t, own.Format) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				for _, other := range schemas {
					if other.Format != own.Format && other.Sniff([]byte(line)) {
						t.Errorf("%s line %d claimed by %s", path, i+1, other.Format)
					}
				}
			}
		}
	}
}

// fixtures are a format's fixture files: its JSON records (format*.jsonl, one file per form of
// the source's records: litellm-spendlogs.jsonl beside litellm.jsonl) and server logs
// (format*.log).
func fixtures(t testing.TB, format string) []string {
	var out []string
	for _, ext := range []string{".jsonl", ".log"} {
		m, err := filepath.Glob(filepath.Join("testdata", format+"*"+ext))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	return out
}
