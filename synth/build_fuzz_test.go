package synth

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/trace"
)

// FuzzBuild feeds arbitrary records (any counts, hash chains, block sizes, sessions) to one
// builder: Build must never panic, and whatever it accepts must count exactly its target and
// respect the cap; what it rejects must name the record.
func FuzzBuild(f *testing.F) {
	f.Add(300, 20, uint8(0), uint64(0), 512, "")
	f.Add(1200, 5, uint8(3), uint64(9), 512, "")
	f.Add(5000, 1, uint8(2), uint64(1), 16, "s1")
	f.Add(0, 0, uint8(1), uint64(0), 0, "s1")
	f.Add(-3, -1, uint8(200), uint64(1<<63), -4, "x")
	b := newBuilder(f, "qwen3", Config{Seed: 11, MaxPromptTokens: 6000})
	f.Fuzz(func(t *testing.T, prompt, output int, nHashes uint8, hashBase uint64, blockSize int, session string) {
		rec := trace.Record{PromptTokens: prompt % 20000, OutputTokens: output, BlockSize: blockSize % 1024, SessionID: session, Source: "fuzz.jsonl", Line: 99}
		for i := range int(nHashes) {
			rec.BlockHashes = append(rec.BlockHashes, hashBase+uint64(i)*7)
		}
		r, err := b.Build(rec)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.jsonl:99") {
				t.Fatalf("error does not name the record: %v", err)
			}
			return
		}
		want := min(rec.PromptTokens, 6000)
		if len(r.PromptIDs) != want || r.TargetPromptTokens != want {
			t.Fatalf("%d tokens (target %d), want %d", len(r.PromptIDs), r.TargetPromptTokens, want)
		}
		if got := len(b.tok.Encode(r.Prompt, true)); got != want {
			t.Fatalf("prompt re-encodes to %d tokens, want %d", got, want)
		}
		if r.MaxTokens < 1 {
			t.Fatalf("max_tokens %d", r.MaxTokens)
		}
	})
}
