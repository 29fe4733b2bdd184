package accesslog

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/llm-replay/replay/internal/genlog"
	"github.com/llm-replay/replay/internal/testenv"
)

// benchLog is the first 2,000 requests of the generated log.
func benchLog(b *testing.B) []byte {
	var buf bytes.Buffer
	if _, err := genlog.Generate(&buf, 2000, genSeed); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkIngest reads the generated log end to end (parse, render, tokenize, hash, sessions),
// with a fresh reader, and so a cold segment cache, every time (the tokenizer's own word cache
// is warmed by one untimed pass in both benchmarks). MB/s is of log bytes. Compare
// with BenchmarkTokenizeOnly at the same -cpu: the goal is at least 80% of its rate.
func BenchmarkIngest(b *testing.B) {
	m := loadModel(b, "qwen3")
	log := benchLog(b)
	ingest := func() int {
		r, err := NewReader(bytes.NewReader(log), "bench.jsonl", Options{Tokenizer: m.tok, Chat: m.chat, HashKey: testKey})
		if err != nil {
			b.Fatal(err)
		}
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
	ingest() // warm the tokenizer's word cache, as BenchmarkTokenizeOnly does
	b.SetBytes(int64(len(log)))
	cpu0 := testenv.CPUTime().Seconds()
	b.ResetTimer()
	n := 0
	for range b.N {
		n += ingest()
	}
	reportRates(b, n, len(log)*b.N, cpu0)
}

// BenchmarkTokenizeOnly is the tokenizer-bound ceiling for BenchmarkIngest: the plain tokenizer
// (no segment cache) encodes exactly the texts the reader has to, as it would (the rendered chat
// prompts, the completions prompts with special tokens, the responses whose usage is not
// logged), spread over GOMAXPROCS goroutines as the reader spreads its lines. Parsing and
// rendering happen before the timer. SetBytes is the log's size, so the MB/s figures compare.
func BenchmarkTokenizeOnly(b *testing.B) {
	m := loadModel(b, "qwen3")
	log := benchLog(b)
	mp, err := buildMapping(nil)
	if err != nil {
		b.Fatal(err)
	}
	type text struct {
		s       string
		special bool
	}
	var texts []text
	lines := 0
	for raw := range bytes.Lines(log) {
		e, err := parseLine(bytes.TrimSpace(raw), mp, 1e9)
		if err != nil {
			b.Fatal(err)
		}
		lines++
		switch {
		case e.chat:
			s, err := m.chat.Render(e.messages)
			if err != nil {
				b.Fatal(err)
			}
			texts = append(texts, text{s, false})
		case e.promptIDs == nil:
			texts = append(texts, text{e.prompt, true})
		}
		if e.usageCompletion < 0 {
			texts = append(texts, text{e.responseText, false})
		}
	}
	workers := runtime.GOMAXPROCS(0)
	encode := func() {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := w; i < len(texts); i += workers {
					m.tok.Encode(texts[i].s, texts[i].special)
				}
			})
		}
		wg.Wait()
	}
	encode() // warm the word cache, as BenchmarkIngest does
	b.SetBytes(int64(len(log)))
	cpu0 := testenv.CPUTime().Seconds()
	b.ResetTimer()
	for range b.N {
		encode()
	}
	reportRates(b, lines*b.N, len(log)*b.N, cpu0)
}

// reportRates adds requests/s, and per CPU-second figures, which stay meaningful on a machine
// shared with other work where wall-clock ones swing.
func reportRates(b *testing.B, requests, bytes int, cpu0 float64) {
	b.ReportMetric(float64(requests)/b.Elapsed().Seconds(), "req/s")
	if cpu := testenv.CPUTime().Seconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(requests)/cpu, "req/cpu-s")
		b.ReportMetric(float64(bytes)/cpu/1e6, "MB/cpu-s")
	}
}
