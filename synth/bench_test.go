package synth

import (
	"context"
	"testing"
	"time"

	"github.com/llm-replay/replay/gen"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// BenchmarkMooncake synthesizes the first 100 Mooncake prompts (capped at 32k tokens, about
// 1.4M tokens in all) with verification by re-encoding, on all cores, and reports prompt
// tokens/s and prompts/s. Building the word pool (once per tokenizer) is not timed.
func BenchmarkMooncake(b *testing.B) {
	for _, name := range []string{"qwen3", "llama2"} {
		b.Run(name, func(b *testing.B) {
			tok := loadTok(b, name)
			recs := mooncake(b, 100)
			var tokens int
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				bl, err := New(tok, Config{Seed: 1, MaxPromptTokens: 32768})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				err = bl.Stream(context.Background(), 0, feed(recs), func(r Request) error { tokens += len(r.PromptIDs); return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(tokens)/sec, "tokens/s")
			b.ReportMetric(float64(len(recs)*b.N)/sec, "prompts/s")
		})
	}
}

// BenchmarkPlan measures choosing the words and rendering the text alone (no re-encoding): the
// sequential part, and the speed synthesis would have without verification.
func BenchmarkPlan(b *testing.B) {
	tok := loadTok(b, "qwen3")
	recs := mooncake(b, 100)
	var tokens int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		bl, err := New(tok, Config{Seed: 1, MaxPromptTokens: 32768})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for _, r := range recs {
			j, err := bl.plan(r)
			if err != nil {
				b.Fatal(err)
			}
			ids, _ := bl.v.render(j.segs[0])
			tokens += len(ids)
		}
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkDefaultShapes builds the prompts of a minute of `replay gen`'s default shapes at 100
// requests/s (about 5,900 requests, sessions growing turn by turn) with the embedded Mistral
// tokenizer the default run uses, every prompt verified by re-encoding, on all cores: the
// build rate a day-long run needs (prompts/s). The word pool is built once, outside the timer.
func BenchmarkDefaultShapes(b *testing.B) {
	tok := loadSample(b)
	recs, err := gen.Records(gen.Config{Duration: time.Minute, Rate: 100, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := New(tok, Config{Seed: 1}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		bl, err := New(tok, Config{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := bl.Stream(context.Background(), 0, feed(recs), func(Request) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "prompts/s")
}

// loadSample loads the embedded Mistral tokenizer, the default run's.
func loadSample(b *testing.B) tokenizer.Tokenizer {
	tok, err := tokenizer.Load(testenv.SampleTokenizer())
	if err != nil {
		b.Fatal(err)
	}
	return tok
}
