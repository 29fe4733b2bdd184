package ingest

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

const mooncakeLines = `{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": []}
{"timestamp": 100, "input_length": 20, "output_length": 6, "hash_ids": []}
{"timestamp": 250, "input_length": 30, "output_length": 7, "hash_ids": []}
`

// TestCompressedByContent reads the same trace plain, gzip'd (one member and one member per
// line, as `cat a.gz b.gz` makes) and zstd'd, under names that say nothing of compression.
func TestCompressedByContent(t *testing.T) {
	plain := []byte(mooncakeLines)
	var members []byte
	for _, line := range strings.SplitAfter(mooncakeLines, "\n") {
		if line != "" {
			members = append(members, testenv.Gzip(t, []byte(line))...)
		}
	}
	forms := map[string][]byte{
		"plain": plain, "gzip": testenv.Gzip(t, plain), "gzip-members": members, "zstd": testenv.Zstd(t, plain),
	}
	want, _, err := ReadAll(writeTemp(t, "plain.jsonl", plain), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range forms {
		path := writeTemp(t, name+".jsonl", b)
		if f, err := FileFormat(path, FormatAuto); err != nil || f != FormatMooncake {
			t.Errorf("%s: detected %q, %v; want mooncake", name, f, err)
		}
		got, _, err := ReadAll(path, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d records, want %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i].Timestamp != want[i].Timestamp || got[i].PromptTokens != want[i].PromptTokens {
				t.Errorf("%s: record %d = %+v, want %+v", name, i, got[i], want[i])
			}
		}
	}
}

// TestCompressedTruncated: a gzip file cut short is an error naming the file, not a short
// trace.
func TestCompressedTruncated(t *testing.T) {
	gz := testenv.Gzip(t, []byte(strings.Repeat(mooncakeLines, 200)))
	path := writeTemp(t, "cut.jsonl.gz", gz[:len(gz)/2])
	_, _, err := ReadAll(path, Options{Format: FormatMooncake})
	if err == nil || !strings.Contains(err.Error(), "cut.jsonl.gz") {
		t.Fatalf("err = %v, want one naming the file", err)
	}
}

// TestCompressedParquetRefused: Parquet seeks, so a compressed one is refused with the fix.
func TestCompressedParquetRefused(t *testing.T) {
	path := writeTemp(t, "t.parquet", testenv.Gzip(t, []byte("PAR1 not really")))
	_, err := Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), "decompress it first") {
		t.Fatalf("err = %v, want the refusal", err)
	}
}

func TestDecompressPlainPassesThrough(t *testing.T) {
	rc, err := Decompress(strings.NewReader("ab"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	if err != nil || string(b) != "ab" {
		t.Fatalf("read %q, %v", b, err)
	}
}

func writeTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
