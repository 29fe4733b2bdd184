package sim

import (
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
	cfg.ChatCounter = func(m []Message) (int, error) {
		mu.Lock()
		seen = append(seen, m)
		mu.Unlock()
		n := 1
		for _, x := range m {
			n += 10 + wordCounter{}.Count(x.Content)
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
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || len(seen[0]) != 2 || seen[0][1].Role != "user" || seen[0][1].Content != "three" {
		t.Errorf("ChatCounter saw %+v", seen)
	}
}
