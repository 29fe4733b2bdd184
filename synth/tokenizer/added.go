package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// addedToken is one entry of tokenizer.json's added_tokens.
type addedToken struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedMatcher finds added tokens in text the way the crate's AddedVocabulary does: an
// Aho-Corasick search with leftmost-longest semantics, then the single_word, lstrip and rstrip
// rules. It is a byte trie; root[b] gives the first node for a text byte b.
type addedMatcher struct {
	nodes  []trieNode
	firsts [256]bool // bytes a token can start with
	// only is the one byte every token starts with ('<' in most vocabularies), -1 when they
	// start with several: then split jumps between its occurrences with IndexByte.
	only   int
	tokens []*addedToken
}

type trieNode struct {
	next  map[byte]int32
	token int32 // index into tokens, -1 when no token ends here
}

func newAddedMatcher(tokens []*addedToken, contents []string) *addedMatcher {
	m := &addedMatcher{nodes: []trieNode{{token: -1}}, tokens: tokens}
	for i, c := range contents {
		if c == "" {
			continue
		}
		n := int32(0)
		for k := 0; k < len(c); k++ {
			nx, ok := m.nodes[n].next[c[k]]
			if !ok {
				if m.nodes[n].next == nil {
					m.nodes[n].next = map[byte]int32{}
				}
				nx = int32(len(m.nodes))
				m.nodes = append(m.nodes, trieNode{token: -1})
				m.nodes[n].next[c[k]] = nx
			}
			n = nx
		}
		if m.nodes[n].token < 0 {
			m.nodes[n].token = int32(i)
		}
		m.firsts[c[0]] = true
	}
	m.only = -1
	for b, ok := range m.firsts {
		switch {
		case !ok:
		case m.only == -1:
			m.only = b
		default:
			m.only = -2
		}
	}
	m.only = max(m.only, -1)
	return m
}

func (m *addedMatcher) empty() bool { return len(m.nodes[0].next) == 0 }

// longestAt returns the index and end of the longest token starting at i, or -1.
func (m *addedMatcher) longestAt(s string, i int) (int32, int) {
	n, best, end := int32(0), int32(-1), -1
	for k := i; k < len(s); k++ {
		nx, ok := m.nodes[n].next[s[k]]
		if !ok {
			break
		}
		n = nx
		if t := m.nodes[n].token; t >= 0 {
			best, end = t, k+1
		}
	}
	return best, end
}

// segment is a piece of the input: either an added token (id >= 0) or text to tokenize.
type segment struct {
	text string
	id   int32
	// first tells that the segment starts at offset 0 of the original input (Metaspace's
	// prepend_scheme "first" looks at that).
	first bool
}

// split cuts s into text and added-token segments, appending them to dst.
func (m *addedMatcher) split(dst []segment, s string, first bool) []segment {
	if m == nil || m.empty() {
		if s != "" {
			dst = append(dst, segment{text: s, id: -1, first: first})
		}
		return dst
	}
	startOffset := 0
	for i := 0; i < len(s); {
		if m.only >= 0 {
			k := strings.IndexByte(s[i:], byte(m.only))
			if k < 0 {
				break
			}
			i += k
		} else if !m.firsts[s[i]] {
			i++
			continue
		}
		t, stop := m.longestAt(s, i)
		if t < 0 {
			i++
			continue
		}
		start := i
		tok := m.tokens[t]
		// Aho-Corasick resumes after the match whatever the flags below decide.
		next := stop
		if tok.SingleWord {
			startSpace := start == 0 || !endsWithWord(s[:start])
			stopSpace := stop == len(s) || !startsWithWord(s[stop:])
			if !startSpace || !stopSpace {
				i = next
				continue
			}
		}
		if tok.LStrip {
			ns := spaceLeftmostAtEnd(s[:start])
			if ns < startOffset {
				ns = startOffset
			}
			start = ns
		}
		if tok.RStrip {
			stop += spaceRightmostAtStart(s[stop:])
		}
		if startOffset < start {
			dst = append(dst, segment{text: s[startOffset:start], id: -1, first: first && startOffset == 0})
		}
		dst = append(dst, segment{text: s[start:stop], id: tok.ID})
		startOffset = stop
		i = next
		if stop > i {
			i = stop
		}
	}
	if startOffset < len(s) {
		dst = append(dst, segment{text: s[startOffset:], id: -1, first: first && startOffset == 0})
	}
	return dst
}

// isWordChar is the crate's test for single_word: alphanumeric (letters and numbers) or '_'.
func isWordChar(r rune) bool { return r == '_' || class(r)&(clsL|clsN) != 0 }

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && isWordChar(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && isWordChar(r)
}

// spaceLeftmostAtEnd returns where the trailing whitespace of s begins.
func spaceLeftmostAtEnd(s string) int {
	i := len(s)
	for i > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsSpace(r) {
			break
		}
		i -= w
	}
	return i
}

// spaceRightmostAtStart returns the length of the leading whitespace of s.
func spaceRightmostAtStart(s string) int {
	for i, r := range s {
		if !unicode.IsSpace(r) {
			return i
		}
	}
	return len(s)
}
