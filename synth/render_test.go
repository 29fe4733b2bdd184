package synth

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// TestChatRenderer: the exported renderer gives the text whose count CountChat reports, and an
// empty template means DefaultChatTemplate.
func TestChatRenderer(t *testing.T) {
	b := newBuilder(t, "qwen3", Config{API: APIChat})
	cfg := Config{}
	if err := ApplyTokenizerConfig(testenv.Tokenizer(t, "qwen3"), &cfg); err != nil {
		t.Fatal(err)
	}
	r, err := NewChatRenderer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi there"}, {Role: "assistant", Content: "Hello!"}, {Role: "user", Content: "Bye"}}
	text, err := r.Render(msgs)
	if err != nil {
		t.Fatal(err)
	}
	n, err := b.CountChat(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(b.tok.Encode(text, false)); got != n || !strings.HasSuffix(text, "<|im_start|>assistant\n") {
		t.Fatalf("rendered %q: %d tokens, CountChat %d", text, got, n)
	}
	d, err := NewChatRenderer(Config{BOSToken: "<s>", EOSToken: "</s>"})
	if err != nil {
		t.Fatal(err)
	}
	if text, err := d.Render(msgs[1:]); err != nil || text != "<s>[INST] Hi there [/INST] Hello!</s>[INST] Bye [/INST]" {
		t.Fatalf("default template: %q, %v", text, err)
	}
}
