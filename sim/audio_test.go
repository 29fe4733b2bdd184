package sim

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llm-replay/replay/media"
)

// audioMessage is a chat body whose user message holds text parts around clips.
func audioMessage(clips ...[]byte) map[string]any {
	parts := []any{map[string]any{"type": "text", "text": "listen"}}
	for _, c := range clips {
		parts = append(parts, map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(c), "format": "wav"}})
	}
	parts = append(parts, map[string]any{"type": "text", "text": " closely"})
	return map[string]any{"model": "m", "max_tokens": 2, "stream": false,
		"messages": []any{map[string]any{"role": "user", "content": parts}}}
}

// TestChatAudio: input_audio parts are read from their header and counted by the configured
// rule on top of the text parts; equal clips share cache blocks and different ones do not; a
// cut clip, a format contradicting the bytes and a clip without a rule are 400s naming the
// message.
func TestChatAudio(t *testing.T) {
	cfg := fastConfig()
	cfg.Audio = media.Qwen2Audio{Rate: 16000, Hop: 160, NSamples: 480000, Wrap: 2}
	var seen []Message
	cfg.ChatCounter = func(msgs []Message, _ json.RawMessage) (int, error) {
		seen = msgs
		return len(strings.Fields(msgs[0].Content)), nil
	}
	_, url := startServer(t, cfg)
	long, _ := media.BuildAudio(1, media.Audio{SampleRate: 16000, Channels: 1, Bits: 16, Samples: 64321})
	short, _ := media.BuildAudio(2, media.Audio{SampleRate: 8000, Channels: 2, Bits: 16, Samples: 8000})
	res := post(t, url, "/v1/chat/completions", audioMessage(long.Data, short.Data))
	if res.status != 200 {
		t.Fatalf("%d: %s", res.status, res.body)
	}
	// "listen closely" is 2 words; 64321 samples at 16 kHz are 101 placeholders, 1 s at 8 kHz
	// 25, each with 2 wrappers.
	if got := usagePrompt(t, res); got != 2+103+27 {
		t.Errorf("prompt tokens %d, want 2 + 103 + 27", got)
	}
	if len(seen) != 1 || seen[0].Content != "listen closely" || len(seen[0].Audio) != 2 || seen[0].Audio[1].Channels != 2 {
		t.Errorf("the counter saw %+v", seen)
	}
	a, b, c := rendered(t, long.Data), rendered(t, long.Data), rendered(t, short.Data)
	if a != b || a == c {
		t.Errorf("rendered blocks: equal clips equal %v, different clips differ %v", a == b, a != c)
	}
	for name, c := range map[string]struct {
		cfg  func(*Config)
		body map[string]any
		want string
	}{
		"truncated":   {nil, audioMessage(long.Data[:len(long.Data)-10]), "cut"},
		"contradicts": {nil, map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(long.Data), "format": "mp3"}}}}}}, "declared format"},
		"no rule":     {func(c *Config) { c.Audio = nil }, audioMessage(short.Data), "no audio token rule"},
	} {
		cc := cfg
		if c.cfg != nil {
			c.cfg(&cc)
		}
		_, u := startServer(t, cc)
		res := post(t, u, "/v1/chat/completions", c.body)
		if res.status != 400 || !strings.Contains(string(res.body), c.want) || !strings.Contains(string(res.body), "messages[0]") {
			t.Errorf("%s: %d %.300s; want 400 naming messages[0] and %q", name, res.status, res.body, c.want)
		}
	}
}

// rendered is the chat text whose blocks the cache hashes (renderChat) for a message holding
// clip.
func rendered(t *testing.T, clip []byte) string {
	t.Helper()
	msgs := audioMessage(clip)["messages"].([]any)
	raw, err := json.Marshal(msgs[0].(map[string]any)["content"])
	if err != nil {
		t.Fatal(err)
	}
	text, mm, err := chatContent(raw)
	if err != nil {
		t.Fatal(err)
	}
	return renderChat([]Message{{Role: "user", Content: text, Images: mm.images, Audio: mm.clips}}, nil)
}
