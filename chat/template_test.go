package chat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// TestChatTemplatesMatchHF compares our rendering of each cached model's chat template with
// the rendering of Hugging Face's own JavaScript Jinja (@huggingface/jinja, committed as
// testdata/chat/NAME.txt by testdata/chat/render.js) for the same conversation.
func TestChatTemplatesMatchHF(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "chat", "conversation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var conv []Message
	if err := json.Unmarshal(raw, &conv); err != nil {
		t.Fatal(err)
	}
	goldens, _ := filepath.Glob(filepath.Join("testdata", "chat", "*.txt"))
	if len(goldens) < 5 {
		t.Fatalf("only %d golden renderings", len(goldens))
	}
	for _, g := range goldens {
		name := strings.TrimSuffix(filepath.Base(g), ".txt")
		t.Run(name, func(t *testing.T) {
			r, err := Load(testenv.Tokenizer(t, name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Render(conv)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(g)
			if got != string(want) {
				t.Errorf("rendering differs from Hugging Face's:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestDefaultTemplate: an empty Source means DefaultTemplate, rendered with the given tokens;
// a missing tokenizer_config.json is no error and gives it too.
func TestDefaultTemplate(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "Hi there"}, {Role: "assistant", Content: "Hello!"}, {Role: "user", Content: "Bye"}}
	d, err := NewRenderer(Template{BOS: "<s>", EOS: "</s>"})
	if err != nil {
		t.Fatal(err)
	}
	if text, err := d.Render(msgs); err != nil || text != "<s>[INST] Hi there [/INST] Hello!</s>[INST] Bye [/INST]" {
		t.Fatalf("default template: %q, %v", text, err)
	}
	if _, err := d.Render([]Message{{Role: "system", Content: "s"}}); err == nil || !strings.Contains(err.Error(), "template raised") {
		t.Errorf("a system message under the default template: %v", err)
	}
	tpl, err := LoadTemplate(filepath.Join(t.TempDir(), "tokenizer.json"))
	if err != nil || tpl != (Template{}) {
		t.Errorf("no tokenizer_config.json: %+v, %v", tpl, err)
	}
}

func TestStrftime(t *testing.T) {
	if got := strftime(chatDate, "%d %b %Y %%"); got != "26 Jul 2024 %" {
		t.Errorf("strftime: %q", got)
	}
}
