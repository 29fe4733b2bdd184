package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
)

// benchZeroCost drives a zero-cost simulator on 127.0.0.1 with a raw net/http client that reads
// SSE lines itself (no JSON decoding), from conc concurrent streams, and reports req/s and
// chunks/s. Client and server share the machine, so the figures bound both from below.
func benchZeroCost(b *testing.B, maxTokens, conc int) {
	cfg := DefaultConfig()
	cfg.ZeroCost = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, stop, err := Listen(ctx, "127.0.0.1:0", cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	// A 64 KiB read buffer (net/http defaults to 4 KiB) reads a long answer in a few syscalls.
	tr := &http.Transport{MaxIdleConns: conc * 2, MaxIdleConnsPerHost: conc * 2, DisableCompression: true, ReadBufferSize: 64 << 10}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	body := []byte(fmt.Sprintf(`{"model":"m","prompt":"hello world","max_tokens":%d,"stream":true,"stream_options":{"include_usage":true}}`, maxTokens))
	target := url + "/v1/completions"
	var chunks, fails atomic.Int64
	b.SetParallelism((conc + 1) / 2) // RunParallel starts GOMAXPROCS*p goroutines
	b.ResetTimer()
	start, cpu0 := time.Now(), testenv.CPUTime()
	b.RunParallel(func(pb *testing.PB) {
		br := bufio.NewReaderSize(nil, 64<<10)
		for pb.Next() {
			req, _ := http.NewRequest("POST", target, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				fails.Add(1)
				continue
			}
			br.Reset(resp.Body)
			n, done := 0, false
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					break
				}
				if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
					if bytes.HasPrefix(d, []byte("[DONE]")) {
						done = true
					} else {
						n++
					}
				}
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if !done || n != maxTokens+1 {
				fails.Add(1)
			}
			chunks.Add(int64(n))
		}
	})
	el := time.Since(start).Seconds()
	cpu := testenv.CPUTime() - cpu0
	b.StopTimer()
	if f := fails.Load(); f > 0 {
		b.Fatalf("%d of %d requests failed or came back short", f, b.N)
	}
	b.ReportMetric(float64(b.N)/el, "req/s")
	b.ReportMetric(float64(chunks.Load())/el, "chunks/s")
	// The machine is shared: CPU time per request tells what idle cores would sustain.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/req")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(chunks.Load()), "cpu-ns/chunk")
}

// BenchmarkZeroCostRequests measures request rate with short answers (16 tokens).
func BenchmarkZeroCostRequests(b *testing.B) {
	for _, conc := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("streams=%d", conc), func(b *testing.B) { benchZeroCost(b, 16, conc) })
	}
}

// BenchmarkZeroCostChunks measures chunk rate with long answers (1,024 tokens).
func BenchmarkZeroCostChunks(b *testing.B) {
	for _, conc := range []int{4, 16} {
		b.Run(fmt.Sprintf("streams=%d", conc), func(b *testing.B) { benchZeroCost(b, 1024, conc) })
	}
}

// BenchmarkZeroCostHandler measures the server's own cost per request (16 tokens), without
// network or client, to tell how much of the loopback figures is the server.
func BenchmarkZeroCostHandler(b *testing.B) {
	cfg := DefaultConfig()
	cfg.ZeroCost = true
	s := New(cfg)
	if err := s.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := []byte(`{"model":"m","prompt":"hello world","max_tokens":16,"stream":true,"stream_options":{"include_usage":true}}`)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/completions", bytes.NewReader(body)))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}
