package accesslog

import (
	"encoding/binary"
	"sync"

	"github.com/llm-replay/replay/synth"
)

// promptCache remembers the rendered prompt and its token ids of chat requests by their
// messages. Logs repeat whole requests (retries, popular questions, evaluation sets), and
// rendering a chat template costs more than tokenizing its output, most of it in the template
// interpreter. Exact: the key is every message's role and content, which is all a render
// sees. Bounded like tokenizer.Cached: two generations of up to half the byte limit each.
// Safe for concurrent use; the ids it hands out are shared and must not be changed.
type promptCache struct {
	mu       sync.Mutex
	limit    int
	cur, old map[string]promptEntry
	size     int // bytes held by cur
}

type promptEntry struct {
	prompt string
	ids    []int
}

// promptCacheBytes bounds a reader's prompt cache.
const promptCacheBytes = 64 << 20

func newPromptCache(limit int) *promptCache {
	return &promptCache{limit: limit, cur: map[string]promptEntry{}}
}

// messagesKey appends msgs to buf unambiguously: each role and content length-prefixed.
func messagesKey(buf []byte, msgs []synth.Message) []byte {
	for _, m := range msgs {
		buf = binary.AppendUvarint(buf, uint64(len(m.Role)))
		buf = append(buf, m.Role...)
		buf = binary.AppendUvarint(buf, uint64(len(m.Content)))
		buf = append(buf, m.Content...)
	}
	return buf
}

func (c *promptCache) get(key []byte) (promptEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.cur[string(key)]; ok {
		return e, true
	}
	e, ok := c.old[string(key)]
	if ok {
		delete(c.old, string(key))
		c.putLocked(string(key), e)
	}
	return e, ok
}

func (c *promptCache) put(key []byte, e promptEntry) {
	c.mu.Lock()
	c.putLocked(string(key), e)
	c.mu.Unlock()
}

func (c *promptCache) putLocked(k string, e promptEntry) {
	if _, ok := c.cur[k]; ok {
		return
	}
	n := len(k) + len(e.prompt) + 8*len(e.ids) + 64
	if c.size+n > c.limit/2 {
		c.old, c.cur, c.size = c.cur, make(map[string]promptEntry, len(c.cur)), 0
	}
	c.cur[k] = e
	c.size += n
}
