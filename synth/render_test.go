package synth

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/testenv"
)

// TestChatRenderer: the chat package's renderer of the model's template gives the text whose
// count CountChat reports, so request logs are counted as built chat prompts are.
func TestChatRenderer(t *testing.T) {
	b := newBuilder(t, "qwen3", Config{API: APIChat})
	r, err := chat.Load(testenv.Tokenizer(t, "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []chat.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi there"}, {Role: "assistant", Content: "Hello!"}, {Role: "user", Content: "Bye"}}
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
}
