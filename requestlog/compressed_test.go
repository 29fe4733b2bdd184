package requestlog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// TestCompressedLog: a request log gzip'd or zstd'd, under a name that does not say so, reads
// as the plain log does.
func TestCompressedLog(t *testing.T) {
	plain := `{"ts":1767225600,"request":{"model":"m","messages":[{"role":"user","content":"Q1"}]},"response":{"usage":{"completion_tokens":4}}}
{"ts":1767225601.5,"request":{"model":"m","messages":[{"role":"user","content":"Q2 is longer"}]},"response":{"usage":{"completion_tokens":9}}}
`
	m := sampleModel(t)
	opts := Options{Tokenizer: m.tok, Chat: m.chat, HashKey: testKey, Map: map[string]string{"timestamp": "ts"}}
	want, _, err := readAll(t, plain, opts)
	if err != nil {
		t.Fatal(err)
	}
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(plain))
	gw.Close()
	zw, _ := zstd.NewWriter(&zs)
	zw.Write([]byte(plain))
	zw.Close()
	for name, b := range map[string][]byte{"gzip": gz.Bytes(), "zstd": zs.Bytes()} {
		path := filepath.Join(t.TempDir(), "log.jsonl")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := 0; ; i++ {
			got, err := r.Next()
			if errors.Is(err, io.EOF) {
				if i != len(want) {
					t.Fatalf("%s: %d records, want %d", name, i, len(want))
				}
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got.PromptTokens != want[i].PromptTokens || got.Timestamp != want[i].Timestamp {
				t.Fatalf("%s: record %d %+v, want %+v", name, i, got.Record, want[i].Record)
			}
		}
		r.Close()
	}
}
