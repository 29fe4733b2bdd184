package client

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llm-replay/replay/chat"
)

// TestAPIPartsBody: a message with parts goes on the Responses API as input_text and
// input_image parts (the detail only where logged) and on the Messages API as text and base64
// image blocks; the other messages keep their plain content, and the Messages API's system
// prompt stays the top-level system.
func TestAPIPartsBody(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", API: APIChat, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []chat.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "a b", Parts: []chat.Part{
			{Type: chat.PartText, Text: "a"},
			{Type: chat.PartImage, ImageURL: "data:image/png;base64,AAAA", Detail: "low"},
			{Type: chat.PartImage, ImageURL: "data:image/gif;base64,BBBB"},
			{Type: chat.PartText, Text: " b"},
		}},
	}
	for api, want := range map[string][]string{
		APIResponses: {
			`{"role":"system","content":"be brief"}`,
			`{"role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"low"},{"type":"input_image","image_url":"data:image/gif;base64,BBBB"},{"type":"input_text","text":" b"}]}`,
		},
		APIMessages: {
			`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}},{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"BBBB"}},{"type":"text","text":" b"}]}`,
		},
	} {
		e, err := c.Encode(Request{API: api, Messages: msgs, MaxTokens: 3})
		if err != nil {
			t.Fatalf("%s: %v", api, err)
		}
		var body struct {
			Input    []json.RawMessage `json:"input"`
			Messages []json.RawMessage `json:"messages"`
			System   string            `json:"system"`
		}
		if err := json.Unmarshal(e.body, &body); err != nil {
			t.Fatalf("%s: %v: %s", api, err, e.body)
		}
		got := append(body.Input, body.Messages...)
		if len(got) != len(want) || (api == APIMessages && body.System != "be brief") {
			t.Fatalf("%s: %s", api, e.body)
		}
		for i, m := range got {
			if string(m) != want[i] {
				t.Errorf("%s message %d: %s\nwant %s", api, i, m, want[i])
			}
		}
	}
	msgs[1].Parts[1].ImageURL = "https://example.com/a.png"
	if _, err := c.Encode(Request{API: APIMessages, Messages: msgs, MaxTokens: 3}); err == nil || !strings.Contains(err.Error(), "base64") {
		t.Errorf("an image by URL on the Messages API: %v, want an error", err)
	}
}
