package rowfile

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

// makeRow builds a distinct, fully populated row from i.
func makeRow(i int) results.Row {
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	chunks := make([]int64, rng.IntN(300))
	t := int64(i) * 1000
	for k := range chunks {
		t += rng.Int64N(50_000_000)
		chunks[k] = t
	}
	r := results.Row{
		RequestID:           fmt.Sprintf("req-%06d", i),
		Warmup:              i%17 == 0,
		Turn:                int32(i % 5),
		OriginalTimestampNS: int64(i) * 1_000_000,
		ScheduledNS:         int64(i) * 500_000,
		SentNS:              int64(i)*500_000 + rng.Int64N(1000),
		WrittenNS:           int64(i)*500_000 + 1000 + rng.Int64N(1000),
		QueueWaitNS:         rng.Int64N(1000),
		DoneNS:              t + 1,
		ChunkNS:             chunks,
		TargetPromptTokens:  int32(rng.IntN(8000)),
		TargetOutputTokens:  int32(len(chunks)),
		PromptTokens:        -1,
		CompletionTokens:    int32(len(chunks)),
		CachedTokens:        int32(rng.IntN(100)),
		HTTPStatus:          200,
		Endpoint:            "http://127.0.0.1:8000/v1",
	}
	if len(chunks) > 0 {
		r.FirstTokenNS, r.LastTokenNS = chunks[0], chunks[len(chunks)-1]
	}
	if i%3 == 0 {
		r.SessionID = fmt.Sprintf("s%d", i/3)
	}
	if i%11 == 0 {
		r.ErrorClass, r.ErrorMessage, r.HTTPStatus = "http_429", "queue full: «ünïcode»", 429
		r.RetryAfterNS, r.Attempt, r.Retried = int64(i%4)*1e9, int32(i%3), i%2 == 0
	}
	if i%7 == 0 {
		r.ClientBacklogNS = rng.Int64N(1e9)
	}
	if i%13 == 0 {
		r.Prompt = strings.Repeat("tok ", i%50)
	}
	r.Line = int64(i) + 1
	r.Population = results.Population(i%4 != 0, [...]string{results.KindPlain, results.KindTools, results.KindJSON}[i%3])
	r.CancelledAsLogged = i%19 == 0
	r.Unforced = i%5 == 0
	r.TargetReasoningTokens = -1
	if i%4 == 1 && len(chunks) > 2 { // a thinking answer: its first third thought
		k := len(chunks) / 3
		r.FirstReasoningNS, r.FirstAnswerNS = chunks[0], chunks[k]
		r.ReasoningTokens, r.AnswerTokens, r.TargetReasoningTokens = int32(k), int32(len(chunks)-k), int32(k)
	}
	return r
}

// normalize makes empty and nil slices compare equal (Parquet stores an empty list either way).
func normalize(rows []results.Row) {
	for i := range rows {
		if len(rows[i].ChunkNS) == 0 {
			rows[i].ChunkNS = nil
		}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].RequestID < rows[b].RequestID })
}

func TestConcurrentWriteReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w, err := NewWriterWith(path, WriterOptions{FlushRows: 700, FlushInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const n, writers = 6000, 64
	var wg sync.WaitGroup
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < n; i += writers {
				if err := w.Write(makeRow(i)); err != nil {
					t.Error(err)
					return
				}
				if i%1000 == 0 {
					time.Sleep(25 * time.Millisecond) // let the interval flush fire too
				}
			}
		}(g)
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if err := w.Write(makeRow(0)); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
	got, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]results.Row, n)
	for i := range want {
		want[i] = makeRow(i)
	}
	normalize(got)
	normalize(want)
	if len(got) != n {
		t.Fatalf("read %d rows, wrote %d", len(got), n)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("row %d differs:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// A run cancelled mid-stream closes its writer; the file holds every row Write accepted.
func TestCloseAfterCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w, err := NewWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; ; i += 32 {
				select {
				case <-ctx.Done():
					return
				default:
				}
				if w.Write(makeRow(i)) == nil {
					accepted.Add(1)
				}
			}
		}(g)
	}
	time.Sleep(150 * time.Millisecond)
	cancel()
	// Close while some writers may still be finishing their last Write.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	rows, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(rows)) != accepted.Load() || len(rows) == 0 {
		t.Fatalf("read %d rows, Write accepted %d", len(rows), accepted.Load())
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.RequestID] {
			t.Fatalf("duplicate %s", r.RequestID)
		}
		seen[r.RequestID] = true
	}
}

// Flush puts rows on disk before Close: the file grows, and Close still gives a valid file.
func TestFlushWritesRowGroups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w, err := NewWriterWith(path, WriterOptions{FlushRows: 1 << 30, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		if err := w.Write(makeRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() < 10_000 {
		t.Fatalf("after Flush the file has %v bytes (%v)", st.Size(), err)
	}
	if _, err := ReadAll(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("footer-less file read without a clear error: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rows, err := ReadAll(path); err != nil || len(rows) != 500 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
}

func TestTruncatedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "requests.parquet")
	w, err := NewWriterWith(path, WriterOptions{FlushRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		w.Write(makeRow(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.parquet")
	for _, n := range []int{0, 3, 4, 11, len(full) / 3, len(full) / 2, len(full) - 9, len(full) - 1} {
		if err := os.WriteFile(cut, full[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadAll(cut)
		if err == nil || !strings.Contains(err.Error(), cut) {
			t.Fatalf("cut at %d of %d: err %v", n, len(full), err)
		}
	}
	if _, err := ReadAll(filepath.Join(dir, "missing.parquet")); err == nil || !strings.Contains(err.Error(), "missing.parquet") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestReadStopsOnCallbackError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w, _ := NewWriter(path)
	for i := 0; i < 10; i++ {
		w.Write(makeRow(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop here")
	n := 0
	err := Read(path, func(results.Row) error {
		n++
		if n == 4 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "row 3") || n != 4 {
		t.Fatalf("%v after %d rows", err, n)
	}
}

// An empty run still closes to a valid, empty file.
func TestEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w, err := NewWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadAll(path)
	if err != nil || len(rows) != 0 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
}

// BenchmarkWrite is the cost of Write for concurrent senders, including encoding and
// flushing (Close is inside the timing), for the Parquet writer alone (parquet) and with the
// journal that keeps the rows through a crash (journal): the same rows, in one invocation, so
// the rows/s of the two can be set side by side as a ratio.
func BenchmarkWrite(b *testing.B) {
	rows := make([]results.Row, 1024)
	for i := range rows {
		rows[i] = makeRow(i)
	}
	b.Run("parquet", func(b *testing.B) { benchWrite(b, rows, WriterOptions{NoJournal: true}) })
	b.Run("journal", func(b *testing.B) { benchWrite(b, rows, WriterOptions{}) })
}

func benchWrite(b *testing.B, rows []results.Row, o WriterOptions) {
	path := filepath.Join(b.TempDir(), "requests.parquet")
	w, err := NewWriterWith(path, o)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetParallelism(64)
	cpu0 := int64(testenv.CPUTime())
	start := time.Now()
	var i atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := w.Write(rows[i.Add(1)%1024]); err != nil {
				b.Error(err)
				return
			}
		}
	})
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rows/s")
	b.ReportMetric(float64(int64(testenv.CPUTime())-cpu0)/float64(b.N), "cpu-ns/row")
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/float64(b.N), "file-B/row")
	}
	if w.j != nil {
		b.ReportMetric(float64(w.j.written)/float64(b.N), "journal-B/row")
	}
}
