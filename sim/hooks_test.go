package sim

import (
	"encoding/json"
	"hash/fnv"
	"strings"
	"sync"
	"testing"
)

// wordCounter counts whitespace-separated words: a stand-in tokenizer with a rule the test can
// compute by hand.
type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

func wordIDs(s string) []int {
	var out []int
	for _, w := range strings.Fields(s) {
		h := fnv.New32a()
		h.Write([]byte(w))
		out = append(out, int(h.Sum32()>>1))
	}
	return out
}

// TestHooks checks that Counter, ChatCounter and Tokenize decide the usage and the cache blocks.
func TestHooks(t *testing.T) {
	cfg := fastConfig()
	cfg.Counter = wordCounter{}
	cfg.Tokenize = wordIDs
	var mu sync.Mutex // the hook runs on the handler's goroutine
	var seen [][]Message
	var seenTools []json.RawMessage
	cfg.ChatCounter = func(m []Message, tools json.RawMessage) (int, error) {
		mu.Lock()
		seen, seenTools = append(seen, m), append(seenTools, tools)
		mu.Unlock()
		n := 1 + 100*len(tools)
		for _, x := range m {
			n += 10 + wordCounter{}.Count(x.Content) + 1000*len(x.ToolCalls)
		}
		return n, nil
	}
	_, url := startServer(t, cfg)
	words := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(prefix)
			b.WriteString(strings.Repeat("x", i%7+1))
			b.WriteString(" ")
		}
		return b.String()
	}
	shared := words("s", 64)
	complete := func(prompt string) (int, int) {
		u := usageOf(t, post(t, url, "/v1/completions", map[string]any{"prompt": prompt, "max_tokens": 1, "stream": true,
			"stream_options": map[string]bool{"include_usage": true}}))
		return u.PromptTokens, u.PromptTokensDetails.CachedTokens
	}
	if p, c := complete(shared + words("a", 20)); p != 84 || c != 0 {
		t.Errorf("first: prompt %d cached %d, want 84 and 0", p, c)
	}
	// Same 64 leading words (4 blocks of 16 ids), different tail: 4 blocks hit.
	if p, c := complete(shared + words("b", 20)); p != 84 || c != 64 {
		t.Errorf("second: prompt %d cached %d, want 84 and 64", p, c)
	}
	u := usageOf(t, post(t, url, "/v1/chat/completions", map[string]any{
		"messages":   []map[string]string{{"role": "system", "content": "one two"}, {"role": "user", "content": "three"}},
		"max_tokens": 1, "stream": true, "stream_options": map[string]bool{"include_usage": true}}))
	if u.PromptTokens != 1+12+11 {
		t.Errorf("chat prompt tokens %d, want 24 from ChatCounter", u.PromptTokens)
	}
	// The tools and an earlier turn's tool calls reach the hook as sent, byte for byte:
	// templates render both into the prompt. The tools alone take the fast parser, the tool
	// turn the slow one.
	tools := `[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`
	calls := `[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]`
	for _, body := range []string{
		`{"messages":[{"role":"user","content":"a b"}],"tools":` + tools + `,"max_tokens":1,"stream":true,"stream_options":{"include_usage":true}}`,
		`{"messages":[{"role":"user","content":"a b"},{"role":"assistant","content":null,"tool_calls":` + calls +
			`},{"role":"tool","tool_call_id":"c1","content":"ok"}],"tools":` + tools + `,"max_tokens":1,"stream":true,"stream_options":{"include_usage":true}}`,
	} {
		var v map[string]any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		u := usageOf(t, post(t, url, "/v1/chat/completions", v))
		var want int
		if strings.Contains(body, "tool_calls") {
			want = 1 + 100*len(mustCompact(t, tools)) + 10 + 2 + 10 + 1000*len(mustCompact(t, calls)) + 10 + 1
		} else {
			want = 1 + 100*len(mustCompact(t, tools)) + 10 + 2
		}
		if u.PromptTokens != want {
			t.Errorf("%s: prompt tokens %d, want %d from ChatCounter", body, u.PromptTokens, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || len(seen[0]) != 2 || seen[0][1].Role != "user" || seen[0][1].Content != "three" || seenTools[0] != nil {
		t.Fatalf("ChatCounter saw %+v, tools %q", seen, seenTools)
	}
	if string(seenTools[1]) != mustCompact(t, tools) || string(seenTools[2]) != mustCompact(t, tools) {
		t.Errorf("ChatCounter saw tools %q, want %s", seenTools, tools)
	}
	if m := seen[2]; len(m) != 3 || string(m[1].ToolCalls) != mustCompact(t, calls) || m[2].ToolCallID != "c1" || m[2].Content != "ok" {
		t.Errorf("ChatCounter saw the tool turns as %+v", m)
	}
}

// mustCompact is JSON text as json.Marshal writes it (post re-encodes the body it is given).
func mustCompact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
