package runner

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// A chat request shorter than the chat template's own tokens cannot be built: it is an error
// naming its line, or under --on-error skip it is left out and counted; a window that keeps
// every record is not copied (a day's window is millions of records).
func TestFitChat(t *testing.T) {
	tok, err := tokenizer.Load(testenv.SampleTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	scfg := synth.Config{Seed: 1}
	scfg.API = synth.API(trace.APIChat)
	if scfg.Chat, err = chat.LoadTemplate(testenv.SampleTokenizer()); err != nil {
		t.Fatal(err)
	}
	recs := []trace.Record{
		{PromptTokens: 200, OutputTokens: 4, Source: "t.jsonl", Line: 1},
		{PromptTokens: 2, OutputTokens: 4, Source: "t.jsonl", Line: 2},
		{PromptTokens: 300, OutputTokens: 4, Source: "t.jsonl", Line: 3},
	}
	var msg strings.Builder
	if _, _, err := newBuilder(tok, scfg, recs, false, &msg); err == nil || !strings.Contains(err.Error(), "t.jsonl:2:") {
		t.Fatalf("a 2-token chat prompt: %v, want an error naming t.jsonl:2", err)
	}
	_, kept, err := newBuilder(tok, scfg, recs, true, &msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[0].Line != 1 || kept[1].Line != 3 || !strings.Contains(msg.String(), "left out 1 requests") {
		t.Fatalf("--on-error skip kept %v; said %q", kept, msg.String())
	}
	all := []trace.Record{recs[0], recs[2]}
	_, kept, err = newBuilder(tok, scfg, all, false, &msg)
	if err != nil || len(kept) != 2 || &kept[0] != &all[0] {
		t.Errorf("a window that keeps every record: %d records, err %v, copied %v", len(kept), err, len(kept) > 0 && &kept[0] != &all[0])
	}
}
