package synth

import (
	"context"
	"testing"
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
