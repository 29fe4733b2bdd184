package gatewaylog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"

	"github.com/llm-replay/replay/internal/testenv"
)

// BenchmarkGzipFolder reads a folder of gzip'd JSON-lines logs (an hour of per-minute files)
// as replay does (ingest.Open on the folder: decompressed in process, the first pass for each
// file's span, the merge) against the reference a user would script: `gunzip -c` of the files
// into a pipe, read by the same JSON-lines reader as one file. Both run in every iteration,
// in turn, so a busy machine slows both alike; the figures are each one's time per hour of
// logs and the ratio replay/reference. REPLAY_BENCH_MINUTES and REPLAY_BENCH_PER_MINUTE set
// the size (default 60 files of 500 records). Take figures on a quiet machine only.
func BenchmarkGzipFolder(b *testing.B) {
	gunzip, err := exec.LookPath("gunzip")
	if err != nil {
		b.Skip("no gunzip for the reference")
	}
	dir := b.TempDir()
	minutes, perMinute := envInt("REPLAY_BENCH_MINUTES", 60), envInt("REPLAY_BENCH_PER_MINUTE", 500)
	genDayLines(b, dir, minutes, perMinute)
	files, err := ingest.Resolve([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	var folder, reference time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		n := countRecords(b, dir)
		folder += time.Since(start)
		start = time.Now()
		m := countGunzipped(b, gunzip, files.Files)
		reference += time.Since(start)
		if n != m || n == 0 {
			b.Fatalf("the folder gave %d records, gunzip's stream %d", n, m)
		}
	}
	b.ReportMetric(float64(folder.Nanoseconds())/float64(b.N), "folder-ns/op")
	b.ReportMetric(float64(reference.Nanoseconds())/float64(b.N), "gunzip-ns/op")
	b.ReportMetric(float64(folder)/float64(reference), "ratio")
}

// genDayLines writes minutes gzip'd JSON-lines files of perMinute LiteLLM records each.
func genDayLines(b *testing.B, dir string, minutes, perMinute int) {
	for m := range minutes {
		var recs [][]byte
		for i := range perMinute {
			start := 1767225600.0 + float64(m*60) + float64(i)*60/float64(perMinute)
			recs = append(recs, dayRecord(start, fmt.Sprintf("r-%d-%d", m, i), fmt.Sprintf("u-%d", i%50), 1000+i, 512, 100, "acompletion", true))
		}
		name := filepath.Join(dir, fmt.Sprintf("%04d.jsonl.gz", m))
		if err := os.WriteFile(name, testenv.Gzip(b, jsonForm(b, recs, "lines")), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// countRecords reads path through ingest.Open and counts its records.
func countRecords(b *testing.B, path string) int {
	r, err := ingest.Open(path, ingest.Options{Format: "litellm"})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// countGunzipped is the reference: gunzip -c of the files into a named pipe, which the
// JSON-lines reader reads as one file.
func countGunzipped(b *testing.B, gunzip string, files []string) int {
	fifo := filepath.Join(b.TempDir(), "day.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		b.Skipf("no named pipe: %v", err)
	}
	cmd := exec.Command(gunzip, append([]string{"-c"}, files...)...)
	done := make(chan error, 1)
	go func() {
		out, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		cmd.Stdout = out
		err = cmd.Run()
		out.Close()
		done <- err
	}()
	n := countRecords(b, fifo)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return n
}

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err != nil || n <= 0 {
		return def
	}
	return n
}
