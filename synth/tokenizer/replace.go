package tokenizer

import "strings"

// replaceAll is strings.ReplaceAll, faster when old is one byte, the case of every tokenizer
// that writes spaces as "▁" (SentencePiece's Replace normalizer, Metaspace). strings.Replace
// finds each occurrence with a fresh Index call, which on a prompt of thousands of short
// words cost more than the copy itself (13% of synthesis's CPU on the default shapes, the
// verifying re-encode included, pprof); one pass over the bytes into a buffer sized once
// does the same.
func replaceAll(s, old, repl string) string {
	if len(old) != 1 {
		return strings.ReplaceAll(s, old, repl)
	}
	c := old[0]
	i := strings.IndexByte(s, c)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + strings.Count(s[i:], old)*(len(repl)-1))
	for i >= 0 {
		b.WriteString(s[:i])
		b.WriteString(repl)
		s = s[i+1:]
		i = strings.IndexByte(s, c)
	}
	b.WriteString(s)
	return b.String()
}

// prependNorm is the Prepend normalizer: its text before any non-empty text.
type prependNorm string

func (p prependNorm) normalize(s string) string {
	if s == "" {
		return s
	}
	return string(p) + s
}

// replaceNorm is the Replace normalizer with a literal pattern.
type replaceNorm struct{ old, content string }

func (r replaceNorm) normalize(s string) string { return replaceAll(s, r.old, r.content) }

// prependReplace is Prepend then a one-byte Replace in one copy of the text, the pair every
// SentencePiece tokenizer.json (Llama 2, Mistral) normalizes with: done apart, each copied a
// whole prompt (10% of synthesis's allocation on the default shapes).
type prependReplace struct {
	prepend      string
	old, content string
}

func (n prependReplace) normalize(s string) string {
	if s == "" {
		return s
	}
	c := n.old[0]
	var b strings.Builder
	b.Grow(len(n.prepend) + len(s) + strings.Count(s, n.old)*(len(n.content)-1))
	b.WriteString(n.prepend)
	for i := strings.IndexByte(s, c); i >= 0; i = strings.IndexByte(s, c) {
		b.WriteString(s[:i])
		b.WriteString(n.content)
		s = s[i+1:]
	}
	b.WriteString(s)
	return b.String()
}

// fuseSequence joins each Prepend followed by a one-byte Replace into one prependReplace when
// the prepended text holds no byte the Replace would change (else the two differ from one).
func fuseSequence(q normSequence) normalizer {
	var out normSequence
	for i := 0; i < len(q); i++ {
		p, ok1 := q[i].(prependNorm)
		if i+1 < len(q) && ok1 {
			if r, ok2 := q[i+1].(replaceNorm); ok2 && len(r.old) == 1 && !strings.Contains(string(p), r.old) {
				out = append(out, prependReplace{prepend: string(p), old: r.old, content: r.content})
				i++
				continue
			}
		}
		out = append(out, q[i])
	}
	return out
}
