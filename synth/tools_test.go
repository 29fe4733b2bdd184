package synth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// toolSets are tool definitions as request logs carry them (descriptions already synthetic).
var toolSets = []json.RawMessage{
	json.RawMessage(`[{"type":"function","function":{"name":"get_weather","description":"alpha beta gamma delta","parameters":{"type":"object","properties":{"city":{"type":"string","description":"epsilon zeta"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}}}]`),
	json.RawMessage(`[{"type":"function","function":{"name":"search","description":"eta theta","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}},{"type":"function","function":{"name":"open_url","description":"iota kappa lambda","parameters":{"type":"object","properties":{"url":{"type":"string"},"max_bytes":{"type":"integer"}}}}}]`),
}

// toolRecords mixes plain records, records with tools, with and without block hashes, and
// sessions that grow (no hashes), so every sizing path meets tools.
func toolRecords(t *testing.T) []trace.Record {
	recs := mooncake(t, 24)
	for i := range recs {
		r := &recs[i]
		r.BlockSize = 16
		r.PromptTokens = 400 + 37*i
		if i%3 != 0 {
			r.Options = &trace.Options{Tools: toolSets[i%2]}
		}
		if i%4 == 1 {
			r.BlockHashes = nil
			r.SessionID, r.Turn = fmt.Sprintf("s%d", i%8), i/8
		}
	}
	return recs
}

// toolTemplates are the templates the tools test renders with: Qwen3's (tools in the system
// turn), and Llama 3.1's with tool support (tools in the first user turn) from the chat
// package's reference cases when they are there (the fetched llama3_1 package's template
// predates tools and renders none).
func toolTemplates(t *testing.T) map[string]chat.Template {
	out := map[string]chat.Template{}
	for _, name := range []string{"qwen3", "llama3_1"} {
		tpl, err := chat.LoadTemplate(testenv.Tokenizer(t, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = tpl
	}
	dir := filepath.Join("..", "chat", "testdata", "chat", "tools")
	var cases struct {
		Templates []struct{ Name, Tokenizer, File string }
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "cases.json")); err == nil && json.Unmarshal(raw, &cases) == nil {
		for _, c := range cases.Templates {
			src, err := os.ReadFile(filepath.Join(dir, c.File))
			if c.File == "" || c.Tokenizer != "llama3_1" || err != nil {
				continue
			}
			tpl := out["llama3_1"]
			tpl.Source = string(src)
			out["llama3_1+tools"] = tpl
		}
	}
	return out
}

// With Config.Tools, a chat prompt rendered by the model's template with its tools, as a server
// renders the request, counts exactly the record's prompt tokens, for every template; where
// the template renders tools, the same prompts built without Config.Tools would come out longer.
func TestChatToolsExact(t *testing.T) {
	for name, tpl := range toolTemplates(t) {
		t.Run(name, func(t *testing.T) {
			tok := loadTok(t, strings.TrimSuffix(name, "+tools"))
			b, err := New(tok, Config{Seed: 5, API: APIChat, Tools: true, Chat: tpl})
			if err != nil {
				t.Fatal(err)
			}
			plain, err := New(tok, Config{Seed: 5, API: APIChat, Chat: tpl})
			if err != nil {
				t.Fatal(err)
			}
			r, err := chat.NewRenderer(tpl)
			if err != nil {
				t.Fatal(err)
			}
			rendersTools := false
			for _, rec := range toolRecords(t) {
				req, err := b.Build(rec)
				if err != nil {
					t.Fatal(err)
				}
				var tools json.RawMessage
				if rec.Options != nil {
					tools = rec.Options.Tools
				}
				if n := countTools(t, r, tok, req.Messages, tools); n != rec.PromptTokens {
					t.Fatalf("record %d (%d messages, tools %v): the server would count %d, logged %d", req.Index, len(req.Messages), tools != nil, n, rec.PromptTokens)
				}
				preq, err := plain.Build(rec)
				if err != nil {
					t.Fatal(err)
				}
				if tools == nil {
					continue
				}
				n := countTools(t, r, tok, preq.Messages, tools)
				rendersTools = rendersTools || n > rec.PromptTokens
			}
			if !rendersTools && name != "llama3_1" {
				t.Fatalf("%s: no prompt built without tools grew when sent with them", name)
			}
		})
	}
}

// countTools is the prompt tokens a server counts for msgs offered tools.
func countTools(t *testing.T, r *chat.Renderer, tok tokenizer.Tokenizer, msgs []chat.Message, tools json.RawMessage) int {
	t.Helper()
	prompt, err := r.RenderTools(msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	return len(tok.Encode(prompt, false))
}

// RecordOverhead counts the tools of a chat record with Config.Tools, and only then.
func TestRecordOverheadTools(t *testing.T) {
	rec := trace.Record{PromptTokens: 100, Options: &trace.Options{Tools: toolSets[1]}}
	with := newBuilder(t, "qwen3", Config{API: APIChat, Tools: true})
	without := newBuilder(t, "qwen3", Config{API: APIChat})
	a, err := with.RecordOverhead(rec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := without.RecordOverhead(rec)
	if err != nil {
		t.Fatal(err)
	}
	if a <= b+20 {
		t.Fatalf("overhead with tools %d, without %d", a, b)
	}
}
