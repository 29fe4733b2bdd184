package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
)

// rawExchange sends one pre-built HTTP/1.1 request on a kept-alive connection and reads the
// response line by line, counting SSE data events; it needs a Content-Length, which zero-cost
// answers under 256 KiB carry.
func rawExchange(conn net.Conn, br *bufio.Reader, req []byte) (events int, err error) {
	if _, err := conn.Write(req); err != nil {
		return 0, err
	}
	status, err := br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if !bytes.HasPrefix(status, []byte("HTTP/1.1 200")) {
		return 0, fmt.Errorf("status %q", status)
	}
	length := -1
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(line) <= 2 {
			break
		}
		if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	if length < 0 {
		return 0, fmt.Errorf("no Content-Length")
	}
	for length > 0 {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		length -= len(line)
		if bytes.HasPrefix(line, []byte("data: {")) {
			events++
		}
	}
	return events, nil
}

// benchRawClient drives the zero-cost simulator with the lightest client possible (raw TCP,
// one pre-built request, no HTTP library), so the figures are the server's ceiling here.
func benchRawClient(b *testing.B, maxTokens, conc int) {
	cfg := DefaultConfig()
	cfg.ZeroCost = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, stop, err := Listen(ctx, "127.0.0.1:0", cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	addr := strings.TrimPrefix(url, "http://")
	body := fmt.Sprintf(`{"model":"m","prompt":"hello world","max_tokens":%d,"stream":true,"stream_options":{"include_usage":true}}`, maxTokens)
	req := []byte(fmt.Sprintf("POST /v1/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body))
	var chunks, fails atomic.Int64
	b.SetParallelism((conc + 1) / 2)
	b.ResetTimer()
	start, cpu0 := time.Now(), testenv.CPUTime()
	b.RunParallel(func(pb *testing.PB) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			fails.Add(1)
			for pb.Next() {
			}
			return
		}
		defer conn.Close()
		br := bufio.NewReaderSize(conn, 64<<10)
		for pb.Next() {
			n, err := rawExchange(conn, br, req)
			if err != nil || n != maxTokens+1 {
				fails.Add(1)
				return
			}
			chunks.Add(int64(n))
		}
	})
	el := time.Since(start).Seconds()
	cpu := testenv.CPUTime() - cpu0
	b.StopTimer()
	if f := fails.Load(); f > 0 {
		b.Fatalf("%d streams failed", f)
	}
	b.ReportMetric(float64(b.N)/el, "req/s")
	b.ReportMetric(float64(chunks.Load())/el, "chunks/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/req")
}

// BenchmarkZeroCostRawClient is the zero-cost server's own ceiling on this machine.
func BenchmarkZeroCostRawClient(b *testing.B) {
	b.Run("tokens=16", func(b *testing.B) { benchRawClient(b, 16, 16) })
	b.Run("tokens=1024", func(b *testing.B) { benchRawClient(b, 1024, 4) })
}
