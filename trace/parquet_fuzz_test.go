package trace

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
)

// FuzzReader feeds arbitrary bytes to the normalized trace reader: errors are fine, panics and
// hangs are not.
func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, r := range sampleRecords(10) {
		w.Write(r)
	}
	w.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testenv.PanicAfter(10*time.Second, "reading f.parquet")()
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), "f.parquet")
		if err != nil {
			return
		}
		defer r.Close()
		for i := 0; i < 1<<20; i++ {
			if _, err := r.Next(); err != nil {
				if errors.Is(err, io.EOF) {
					return
				}
				return
			}
		}
	})
}
