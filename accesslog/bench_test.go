package accesslog

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/llm-replay/replay/accesslog/internal/genlog"
)

// benchLog is the first 500 requests of the generated log.
func benchLog(b *testing.B) ([]byte, []genlog.Truth) {
	var buf bytes.Buffer
	truths, err := genlog.Generate(&buf, 500, genSeed)
	if err != nil {
		b.Fatal(err)
	}
	return buf.Bytes(), truths
}

// BenchmarkIngest reads the generated log end to end (parse, render, tokenize, hash, sessions);
// MB/s is of log bytes. Compare with BenchmarkTokenizeOnly on the same prompts: the goal is at
// least 80% of the tokenizer's own rate.
func BenchmarkIngest(b *testing.B) {
	m := loadModel(b, "qwen3")
	log, _ := benchLog(b)
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	n := 0
	for range b.N {
		r, err := NewReader(bytes.NewReader(log), "bench.jsonl", Options{Tokenizer: m.tok, Chat: m.chat, HashKey: testKey})
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
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkTokenizeOnly encodes the same requests' rendered prompts and responses without
// anything else: the tokenizer-bound ceiling for BenchmarkIngest (SetBytes is the log's size,
// so the two MB/s figures compare directly).
func BenchmarkTokenizeOnly(b *testing.B) {
	m := loadModel(b, "qwen3")
	log, truths := benchLog(b)
	var texts []string
	var special []bool
	for _, t := range truths {
		if t.Chat {
			s, err := m.chat.Render(t.Messages)
			if err != nil {
				b.Fatal(err)
			}
			texts, special = append(texts, s), append(special, false)
		} else {
			texts, special = append(texts, t.Prompt), append(special, true)
		}
		texts, special = append(texts, t.Response), append(special, false)
	}
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for range b.N {
		for i, s := range texts {
			m.tok.Encode(s, special[i])
		}
	}
	b.ReportMetric(float64(len(truths)*b.N)/b.Elapsed().Seconds(), "req/s")
}
