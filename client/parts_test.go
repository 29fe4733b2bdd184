package client

import (
	"encoding/json"
	"testing"

	"github.com/llm-replay/replay/chat"
)

// TestPartsBody: a message with parts goes as chat's content list, text parts, image_url
// parts with their detail (none where it had none) and input_audio parts; the other messages
// keep their plain content.
func TestPartsBody(t *testing.T) {
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
			{Type: chat.PartAudio, AudioData: "UklGRg==", AudioFormat: "wav"},
			{Type: chat.PartText, Text: " b"},
		}},
	}
	e, err := c.Encode(Request{Messages: msgs, MaxTokens: 3})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(e.body, &body); err != nil {
		t.Fatalf("%v: %s", err, e.body)
	}
	want := []string{
		`{"role":"system","content":"be brief"}`,
		`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"low"}},{"type":"image_url","image_url":{"url":"data:image/gif;base64,BBBB"}},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},{"type":"text","text":" b"}]}`,
	}
	for i, m := range body.Messages {
		if string(m) != want[i] {
			t.Errorf("message %d: %s\nwant %s", i, m, want[i])
		}
	}
}
