package synth

import (
	"testing"

	"github.com/llm-replay/replay/chat"
)

// TestCountChat: a server counting a built chat request with the same template and tokenizer
// gets exactly the request's target, for first turns and for grown conversations.
func TestCountChat(t *testing.T) {
	b := newBuilder(t, "qwen3", Config{Seed: 3, API: APIChat, BlockSize: 16})
	recs := mooncake(t, 20)
	for i := range recs {
		recs[i].BlockSize = 16
		recs[i].BlockHashes = nil
		recs[i].PromptTokens = min(recs[i].PromptTokens, 600)
		if i%2 == 1 { // every other record continues the conversation before it
			recs[i].SessionID, recs[i].Turn = "s", i/2
		}
	}
	for _, rec := range recs {
		req, err := b.Build(rec)
		if err != nil {
			t.Fatal(err)
		}
		n, err := b.CountChat(req.Messages)
		if err != nil {
			t.Fatal(err)
		}
		if n != req.TargetPromptTokens {
			t.Fatalf("request %d (%d messages): CountChat %d, target %d", req.Index, len(req.Messages), n, req.TargetPromptTokens)
		}
	}
	c, err := New(loadTok(t, "qwen3"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CountChat([]chat.Message{{Role: "user", Content: "hi"}}); err == nil {
		t.Fatal("CountChat on a completions builder did not fail")
	}
}
