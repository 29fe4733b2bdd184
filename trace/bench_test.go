package trace

import (
	"errors"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkReader reads a 200,000-record normalized file (hash lists like Mooncake's).
func BenchmarkReader(b *testing.B) {
	recs := sampleRecords(200_000)
	p := filepath.Join(b.TempDir(), "t.parquet")
	w, err := CreateFile(p)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range recs {
		w.Write(r)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		r, err := OpenFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		r.Close()
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rec/s")
}

// BenchmarkWriter writes 200,000 records.
func BenchmarkWriter(b *testing.B) {
	recs := sampleRecords(200_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := NewWriter(io.Discard)
		for _, r := range recs {
			w.Write(r)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "rec/s")
}
