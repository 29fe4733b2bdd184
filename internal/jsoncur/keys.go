package jsoncur

import "unicode/utf8"

// Keys is the set of keys a walker looks for at one level, prepared for KeyIn.
type Keys struct {
	list []string
	// plain marks the keys with no quote, backslash, control byte or invalid UTF-8: raw input
	// bytes equal such a key exactly when the decoded key does.
	plain []bool
}

// NewKeys prepares keys for KeyIn.
func NewKeys(keys ...string) Keys {
	ks := Keys{list: keys, plain: make([]bool, len(keys))}
	for i, k := range keys {
		ks.plain[i] = utf8.ValidString(k)
		for j := 0; j < len(k); j++ {
			if k[j] == '"' || k[j] == '\\' || k[j] < 0x20 {
				ks.plain[i] = false
			}
		}
	}
	return ks
}

// KeyIn reads a member's key and the ':' after it, like Key, and returns the index in ks of the
// key it equals once decoded, or -1. A key written as plainly as the wanted one is matched in
// place, without a scan for its end: the walkers of wide rows (ingest) read mostly wanted keys.
func (c *Cursor) KeyIn(ks *Keys) int {
	c.ws()
	if b, i := c.b, c.i; i < len(b) && b[i] == '"' {
		for k, key := range ks.list {
			if e := i + 1 + len(key); e < len(b) && b[e] == '"' && ks.plain[k] && string(b[i+1:e]) == key {
				c.i = e + 1
				c.colon()
				return k
			}
		}
	}
	key := c.Unquote(c.Key())
	for k, want := range ks.list {
		if string(key) == want {
			return k
		}
	}
	return -1
}

// colon consumes the ':' after a key; inlined, for the usual ':' right after the quote.
func (c *Cursor) colon() {
	if c.i < len(c.b) && c.b[c.i] == ':' {
		c.i++
		return
	}
	c.spacedColon()
}

func (c *Cursor) spacedColon() {
	c.ws()
	if c.i < len(c.b) && c.b[c.i] == ':' {
		c.i++
		return
	}
	c.failAt(c.i, "after object key")
}
