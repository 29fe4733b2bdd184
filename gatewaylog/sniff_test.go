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
		for _, ext := range []string{".jsonl", ".log"} { // JSON records, a server log's lines
			b, err := os.ReadFile(filepath.Join("testdata", own.Format+ext))
			if err != nil {
				continue
			}
			for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				for _, other := range schemas {
					if other.Format != own.Format && other.Sniff([]byte(line)) {
						t.Errorf("%s%s line %d claimed by %s", own.Format, ext, i+1, other.Format)
					}
				}
			}
		}
	}
}
