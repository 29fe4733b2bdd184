package requestlog

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// FuzzParseLine: no line makes the parser (and the reading of the body's text after it:
// tools, formats, carried fields, tool inputs' order) panic, an accepted line has a request
// and a way to know its output length, and carried fields are JSON. Seeds: the five APIs'
// shapes here and testdata/fuzz/FuzzParseLine.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-01-01T00:00:00Z","request":{"messages":[{"role":"user","content":"hi"}]},"response":{"usage":{"completion_tokens":3}}}`))
	f.Add([]byte(`{"timestamp":5,"status":499,"duration_ms":12.5,"request":{"stream":false,"temperature":0.2,"stop":"x","n":2,"tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"ok"}]}}`))
	f.Add([]byte(`{"timestamp":5,"cancelled":true,"end_timestamp":6,"request":{"prompt":"x","logprobs":2,"response_format":{"type":"json_object"}},"response":{"choices":[{"text":"a"},{"text":"b"}]}}`))
	f.Add([]byte(`{"timestamp":1,"path":"/v1/responses","request":{"instructions":"be brief","previous_response_id":"r0","input":[{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}]},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}],"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],"text":{"format":{"type":"json_schema","name":"x","schema":{"type":"object"}}},"reasoning":{"effort":"low"}},"response":{"id":"r1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","content":[{"type":"output_text","text":"hi"}]}],"usage":{"input_tokens":5,"output_tokens":1}}}`))
	f.Add([]byte(`{"timestamp":1,"request":{"system":[{"type":"text","text":"s"}],"max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"tool_use","id":"u","name":"f","input":{"b":1,"a":2}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"u","content":[{"type":"text","text":"r"}]}]}],"tools":[{"name":"f","input_schema":{"type":"object"}}],"metadata":{"user_id":"x"}},"response":{"type":"message","content":[{"type":"text","text":"a"}],"stop_reason":"max_tokens","usage":{"input_tokens":1,"cache_read_input_tokens":2,"output_tokens":1}}}`))
	f.Add([]byte(`{"timestamp":1,"request":{"input":[[1,2],[3]],"dimensions":8,"user":"u"},"response":{"object":"list","usage":{"prompt_tokens":3}}}`))
	f.Add([]byte(`{"timestamp":1,"request":{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:image/webp;base64,UklGRhEAAABXRUJQVlA4TAUAAAAvBMAAAA==","detail":"low"}},{"type":"image_url","image_url":"https://x/y.gif"}]}]},"response":{"usage":{"completion_tokens":1}}}`))
	f.Add([]byte(`{"timestamp":1,"request":{"messages":[{"role":"user","content":"q"}],"reasoning_effort":"low","chat_template_kwargs":{"enable_thinking":true}},"response":{"choices":[{"message":{"content":"<think>t</think>a","reasoning":"r"}},{"message":{"content":"<think>u"}}],"usage":{"completion_tokens":4,"completion_tokens_details":{"reasoning_tokens":2}}}}`))
	f.Add([]byte(`{"timestamp":1,"path":"/v1/responses","request":{"input":"q"},"response":{"output":[{"type":"reasoning","content":[{"type":"reasoning_text","text":"t"}]},{"type":"reasoning","encrypted_content":"x"}],"usage":{"output_tokens":3,"output_tokens_details":{"reasoning_tokens":1}}}}`))
	f.Add([]byte(`{"timestamp":1,"request":{"messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQQAAAAQAPD/","format":"wav"}},{"type":"text","text":"a"},{"type":"input_audio","input_audio":{"data":"//uQRAAA","format":"mp3"}}]}]},"response":{"usage":{"completion_tokens":1}}}`))
	m, err := buildMapping(map[string]string{"session_id": "request.metadata.session"})
	if err != nil {
		f.Fatal(err)
	}
	tok, err := tokenizer.Load(testenv.SampleTokenizer())
	if err != nil {
		f.Fatal(err)
	}
	red := newRedactor(tok)
	imageReader := &Reader{opts: Options{Images: media.Fixed(10), ImageWidth: 64, ImageHeight: 48, Audio: media.TokensPerSecond(25)}}
	h, _ := newBlockHasher(testKey)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, unit := range []time.Duration{time.Second, time.Nanosecond} {
			e, err := parseLine(data, m, unit)
			if err != nil {
				continue
			}
			for _, keep := range []bool{false, true} {
				c := e
				if err := rawOptions(data, m["request"], "request", &c, red, keep, h.pseudonym); err == nil && c.opts.Fields != nil && !json.Valid(c.opts.Fields) {
					t.Fatalf("fields %s are not JSON", c.opts.Fields)
				}
			}
			if !e.chat && e.promptIDs == nil && e.messages != nil {
				t.Fatalf("completion with messages: %+v", e)
			}
			if e.chat && len(e.messages) == 0 {
				t.Fatal("chat request without messages accepted")
			}
			if e.usageCompletion < 0 && !e.hasResponse && !e.opts.Cancelled {
				t.Fatal("no output length, yet accepted")
			}
			if e.opts == nil || trace.ChatFamily(e.opts.API) != e.chat {
				t.Fatalf("options %+v for a chat request %v", e.opts, e.chat)
			}
			// The images: read and counted, or refused by name.
			parts, n, _, err := imageReader.readMedia(e.media, e.model, h, e.usagePrompt, 0)
			if err == nil && (len(parts) != len(e.media) || n < 0) {
				t.Fatalf("%d images read as %d parts, %d tokens", len(e.media), len(parts), n)
			}
		}
	})
}
