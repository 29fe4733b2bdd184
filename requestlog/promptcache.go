package requestlog

import (
	"encoding/binary"
	"sync"

	"github.com/llm-replay/replay/chat"
)

// promptCache remembers the rendered prompt, its token ids and its block hashes of chat
// requests by their messages. Logs repeat whole requests (retries, popular questions,
// evaluation sets), and rendering a chat template costs more than tokenizing its output, most
// of it in the template interpreter. And a chat's next turn is its previous request's messages
// and two more, so that request's entry is found by a prefix of the new key, and its hashes
// serve the blocks the two prompts share. Exact: the key is the tools and every message's
// parts, which is all a render sees, and shared blocks are found by comparing ids. Bounded
// like tokenizer.Cached: two generations of up to half the byte limit each. Safe for
// concurrent use; the ids it hands out are shared and must not be changed.
type promptCache struct {
	mu       sync.Mutex
	limit    int
	cur, old map[string]promptEntry
	size     int // bytes held by cur
}

type promptEntry struct {
	prompt string
	ids    []int
	hashes []uint64
}

// promptCacheBytes bounds a reader's prompt cache.
const promptCacheBytes = 64 << 20

func newPromptCache(limit int) *promptCache {
	return &promptCache{limit: limit, cur: map[string]promptEntry{}}
}

// messagesKey appends the request's tools and msgs to buf unambiguously, every part
// length-prefixed, and to ends the key's length after each message: buf[:ends[i]] is the key
// of msgs[:i+1] with the same tools. A message's part is everything a template renders of it:
// role, content, name, tool_call_id, reasoning and its tool calls.
func messagesKey(buf []byte, ends []int, tools []byte, msgs []chat.Message) ([]byte, []int) {
	buf = appendPart(buf, string(tools))
	for _, m := range msgs {
		buf = appendPart(buf, m.Role)
		buf = appendPart(buf, m.Content)
		buf = appendPart(buf, m.Name)
		buf = appendPart(buf, m.ToolCallID)
		buf = appendPart(buf, m.Reasoning)
		buf = binary.AppendUvarint(buf, uint64(len(m.ToolCalls)))
		for _, c := range m.ToolCalls {
			buf = appendPart(buf, c.ID)
			buf = appendPart(buf, c.Type)
			buf = appendPart(buf, c.Function.Name)
			buf = appendPart(buf, c.Function.Arguments)
		}
		ends = append(ends, len(buf))
	}
	return buf, ends
}

func appendPart(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
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
	n := len(k) + len(e.prompt) + 8*len(e.ids) + 8*len(e.hashes) + 64
	if c.size+n > c.limit/2 {
		c.old, c.cur, c.size = c.cur, make(map[string]promptEntry, len(c.cur)), 0
	}
	c.cur[k] = e
	c.size += n
}
