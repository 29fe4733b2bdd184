package rowfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

// benchRows is the size of the benchmark's file: about a 4-hour zero-cost run's 288,221 rows.
// REPLAY_BENCH_ROWS sets another.
func benchRows(tb testing.TB) int {
	n := 300_000
	if s := os.Getenv("REPLAY_BENCH_ROWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			tb.Fatalf("REPLAY_BENCH_ROWS=%q: want a positive row count", s)
		}
		n = v
	}
	return n
}

// writeBenchFile writes n invented rows in a real run's shapes (uniform 1..283 chunk offsets,
// about 142 a row as in a 4-hour run's file; a session on half the rows; a few failures;
// numeric request ids; one endpoint, population and API) to path with the run's writer and
// its default row groups, 10,000 rows at a time so the rows are never all in memory.
func writeBenchFile(tb testing.TB, path string, n int) {
	w, err := NewWriterWith(path, WriterOptions{NoJournal: true})
	if err != nil {
		tb.Fatal(err)
	}
	const piece = 10_000
	for at := 0; at < n; at += piece {
		sp := testenv.SynthRun{N: min(piece, n-at), Seed: uint64(at), Rate: 20, TTFTMS: 200,
			TTFTSigma: 0.5, ITLMS: 20, MaxOut: 283, ErrRate: 0.005}
		offset := int64(at) * int64(time.Second) / 20
		for i, r := range testenv.SynthRows(sp) {
			r.Shift(offset)
			r.RequestID, r.Line = strconv.Itoa(at+i), int64(at+i+1)
			if i%2 == 0 {
				r.SessionID, r.Turn = "s"+strconv.Itoa((at+i)/6), int32(i%6/2)
			}
			r.Endpoint, r.Population, r.API = "simulator", "stream/plain", "completions"
			if err := w.Write(r); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkRead reads one file of benchRows rows by the column reader and by parquet-go's
// generic reader in turn (and by the column reader with its offsets reused, RowsReused's),
// each iteration, and reports each per row and their ratios (so a busy machine slows all
// alike). REPLAY_BENCH_OUT=PATH only writes the file there (a run folder's requests.parquet,
// for measuring `replay report` on it) and reads nothing.
//
//	go test ./results/rowfile -run '^$' -bench BenchmarkRead -benchtime 3x
//	REPLAY_BENCH_ROWS=600000 REPLAY_BENCH_OUT=/tmp/run/requests.parquet go test ./results/rowfile -run '^$' -bench BenchmarkRead -benchtime 1x
func BenchmarkRead(b *testing.B) {
	n := benchRows(b)
	if out := os.Getenv("REPLAY_BENCH_OUT"); out != "" {
		writeBenchFile(b, out, n)
		b.Logf("wrote %d rows to %s", n, out)
		return
	}
	path := filepath.Join(b.TempDir(), "requests.parquet")
	writeBenchFile(b, path, n)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var took [3]time.Duration
	b.ResetTimer()
	for b.Loop() {
		for k, mode := range []readMode{byColumns, byColumnsShared, byGeneric} {
			start, rows := time.Now(), 0
			err := readWith(path, bytes.NewReader(data), int64(len(data)), mode, func(results.Row) error {
				rows++
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			if rows != n {
				b.Fatalf("%d rows of %d", rows, n)
			}
			took[k] += time.Since(start)
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / float64(n) }
	b.ReportMetric(per(took[0]), "columns-ns/row")
	b.ReportMetric(per(took[1]), "shared-ns/row")
	b.ReportMetric(per(took[2]), "generic-ns/row")
	b.ReportMetric(float64(took[2])/float64(took[0]), "generic/columns")
	b.ReportMetric(float64(took[2])/float64(took[1]), "generic/shared")
}
