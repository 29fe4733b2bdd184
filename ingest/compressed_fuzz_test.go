package ingest

import (
	"bytes"
	"io"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// FuzzDecompress feeds any bytes to the content-sniffing decompressor: no panic; bytes that
// are neither gzip nor zstd come out as they went in; compressed ones (seeded from real
// members) come out as their content or as an error, never more than a bound (a bomb stops
// at the limit, it does not exhaust memory here).
func FuzzDecompress(f *testing.F) {
	f.Add([]byte(mooncakeLines))
	f.Add(testenv.Gzip(f, []byte(mooncakeLines)))
	f.Add(append(testenv.Gzip(f, []byte("a\n")), testenv.Gzip(f, []byte("b\n"))...))
	f.Add(testenv.Zstd(f, []byte(mooncakeLines)))
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		rc, err := Decompress(bytes.NewReader(data))
		if err != nil {
			if Compression(data) == "" {
				t.Fatalf("plain bytes refused: %v", err)
			}
			return
		}
		defer rc.Close()
		out, err := io.ReadAll(io.LimitReader(rc, 1<<20))
		if Compression(data) == "" && (err != nil || !bytes.Equal(out, data)) {
			t.Fatalf("plain bytes changed: %q, %v", out, err)
		}
	})
}
