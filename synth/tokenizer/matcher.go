package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// matcher finds the pattern of a Split pre-tokenizer: all leftmost, non-overlapping matches, in
// the order Oniguruma's find_iter (what the crate uses) reports them.
type matcher interface {
	// appendMatches appends the [start, end) byte ranges of the matches in s to dst.
	appendMatches(dst [][2]int, s string) [][2]int
}

// runeAt decodes the rune at byte i of s (s is valid UTF-8).
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// spanClass returns the end of the run of runes from i that have any of the bits in cls.
func spanClass(s string, i int, cls uint16) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiClass[c]&cls == 0 {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if class(r)&cls == 0 {
			return i
		}
		i += w
	}
	return i
}

// spanNotClass returns the end of the run of runes from i that have none of the bits in cls.
func spanNotClass(s string, i int, cls uint16) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiClass[c]&cls != 0 {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if class(r)&cls != 0 {
			return i
		}
		i += w
	}
	return i
}

// spanBytes returns the end of the run of bytes from i that are in set (an ASCII set).
func spanBytes(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at i and returns its end, or -1. Oniguruma
// folds case with Unicode rules, so 's also matches 'S and "'ſ" (U+017F LATIN SMALL LETTER LONG S).
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return -1
	}
	j := i + 1
	switch s[j] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return j + 1
	case 0xC5: // U+017F is C5 BF
		if j+1 < len(s) && s[j+1] == 0xBF {
			return j + 2
		}
	case 'r', 'R', 'v', 'V':
		if j+1 < len(s) && (s[j+1] == 'e' || s[j+1] == 'E') {
			return j + 2
		}
	case 'l', 'L':
		if j+1 < len(s) && (s[j+1] == 'l' || s[j+1] == 'L') {
			return j + 2
		}
	}
	return -1
}

// contractionCase matches 's|'t|'re|'ve|'m|'ll|'d case-sensitively (the GPT-2 pattern).
func contractionCase(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return -1
	}
	j := i + 1
	switch s[j] {
	case 's', 't', 'm', 'd':
		return j + 1
	case 'r', 'v':
		if j+1 < len(s) && s[j+1] == 'e' {
			return j + 2
		}
	case 'l':
		if j+1 < len(s) && s[j+1] == 'l' {
			return j + 2
		}
	}
	return -1
}

// whitespaceAlts matches the tail shared by the GPT patterns at i, where s[i] is \s:
// \s*[\r\n]+|\s+(?!\S)|\s+ . It returns the end, or -1.
func whitespaceAlts(s string, i int) int {
	j := spanClass(s, i, clsWS)
	if j == i {
		return -1
	}
	// \s*[\r\n]+: backtracking from the longest \s* stops at the last CR or LF of the run.
	// (Multi-byte spaces never contain the bytes 0x0A or 0x0D.)
	for k := j - 1; k >= i; k-- {
		if s[k] == '\n' || s[k] == '\r' {
			return k + 1
		}
	}
	// \s+(?!\S): the whole run at the end of the text, else the run minus its last rune.
	if j == len(s) {
		return j
	}
	_, w := utf8.DecodeLastRuneInString(s[i:j])
	if j-w > i {
		return j - w
	}
	return j // \s+
}

// atMatcher is a pattern that can be tried at a position; matchAt returns the end or -1.
type atMatcher interface {
	matchAt(s string, i int) int
}

// scanMatches runs m as a search: at each rune position try a match, else move one rune on.
func scanMatches(m atMatcher, dst [][2]int, s string) [][2]int {
	i := 0
	for i < len(s) {
		if e := m.matchAt(s, i); e > i {
			dst = append(dst, [2]int{i, e})
			i = e
			continue
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
	}
	return dst
}

// llamaMatcher is the Llama-3 / Qwen2 pattern:
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// with maxDigits 3 (Llama-3) or 1 (Qwen, \p{N}).
type llamaMatcher struct{ maxDigits int }

func (m llamaMatcher) appendMatches(dst [][2]int, s string) [][2]int { return scanMatches(m, dst, s) }

func (m llamaMatcher) matchAt(s string, i int) int {
	c, w := runeAt(s, i)
	cl := class(c)
	if c == '\'' {
		if e := contraction(s, i); e >= 0 {
			return e
		}
	}
	if cl&clsL != 0 {
		return spanClass(s, i, clsL)
	}
	if c != '\r' && c != '\n' && cl&clsN == 0 && i+w < len(s) {
		if r, _ := runeAt(s, i+w); class(r)&clsL != 0 {
			return spanClass(s, i+w, clsL)
		}
	}
	if cl&clsN != 0 {
		return spanDigits(s, i, m.maxDigits)
	}
	if e := punctRun(s, i, c, "\r\n"); e >= 0 {
		return e
	}
	if cl&clsWS != 0 {
		return whitespaceAlts(s, i)
	}
	return -1
}

// spanDigits matches \p{N}{1,max} at i.
func spanDigits(s string, i, max int) int {
	j := i
	for k := 0; k < max && j < len(s); k++ {
		r, w := runeAt(s, j)
		if class(r)&clsN == 0 {
			break
		}
		j += w
	}
	if j == i {
		return -1
	}
	return j
}

// punctRun matches " ?[^\s\p{L}\p{N}]+[tail]*" at i, where c is the rune at i.
func punctRun(s string, i int, c rune, tail string) int {
	j := i
	if c == ' ' {
		j++
	}
	if j >= len(s) {
		return -1
	}
	if r, _ := runeAt(s, j); class(r)&(clsWS|clsL|clsN) != 0 {
		return -1
	}
	e := spanNotClass(s, j, clsWS|clsL|clsN)
	return spanBytes(s, e, tail)
}

// gpt4oMatcher is the o200k pattern of GPT-4o and gpt-oss:
// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
// |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
// |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
type gpt4oMatcher struct{}

func (m gpt4oMatcher) appendMatches(dst [][2]int, s string) [][2]int { return scanMatches(m, dst, s) }

func (gpt4oMatcher) matchAt(s string, i int) int {
	c, w := runeAt(s, i)
	cl := class(c)
	prefix := c != '\r' && c != '\n' && cl&(clsL|clsN) == 0 && i+w < len(s)
	// Each alternative first tries with the optional prefix rune taken, then without.
	if prefix {
		if e := upperLower(s, i+w); e >= 0 {
			return optContraction(s, e)
		}
	}
	if e := upperLower(s, i); e >= 0 {
		return optContraction(s, e)
	}
	if prefix {
		if e := upperThenLower(s, i+w); e >= 0 {
			return optContraction(s, e)
		}
	}
	if e := upperThenLower(s, i); e >= 0 {
		return optContraction(s, e)
	}
	if cl&clsN != 0 {
		return spanDigits(s, i, 3)
	}
	if e := punctRun(s, i, c, "\r\n/"); e >= 0 {
		return e
	}
	if cl&clsWS != 0 {
		return whitespaceAlts(s, i)
	}
	return -1
}

func optContraction(s string, e int) int {
	if e2 := contraction(s, e); e2 >= 0 {
		return e2
	}
	return e
}

// upperLower matches [X1]*[X2]+ at j with Oniguruma's backtracking: the greedy X1 run, then an
// X2 run after it, or else the X1 run cut back to its last rune that is also X2.
func upperLower(s string, j int) int {
	k := j
	lastX2 := -1
	for k < len(s) {
		r, w := runeAt(s, k)
		cl := class(r)
		if cl&clsX1 == 0 {
			break
		}
		k += w
		if cl&clsX2 != 0 {
			lastX2 = k
		}
	}
	if k < len(s) {
		if r, _ := runeAt(s, k); class(r)&clsX2 != 0 {
			return spanClass(s, k, clsX2)
		}
	}
	return lastX2
}

// upperThenLower matches [X1]+[X2]* at j.
func upperThenLower(s string, j int) int {
	if j >= len(s) {
		return -1
	}
	k := spanClass(s, j, clsX1)
	if k == j {
		return -1
	}
	return spanClass(s, k, clsX2)
}

// gpt2Matcher is the ByteLevel pre-tokenizer's own pattern:
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
type gpt2Matcher struct{}

func (m gpt2Matcher) appendMatches(dst [][2]int, s string) [][2]int { return scanMatches(m, dst, s) }

func (gpt2Matcher) matchAt(s string, i int) int {
	if e := contractionCase(s, i); e >= 0 {
		return e
	}
	j := i
	if s[i] == ' ' && i+1 < len(s) {
		j = i + 1
	}
	for _, cls := range [2]uint16{clsL, clsN} {
		// " ?X+": with the space if one is there, else without (a space is never X).
		if e := spanClass(s, j, cls); e > j {
			return e
		}
	}
	if e := punctRun(s, i, rune(s[i]), ""); e >= 0 {
		return e
	}
	c, _ := runeAt(s, i)
	if class(c)&clsWS != 0 {
		j := spanClass(s, i, clsWS)
		if j == len(s) {
			return j
		}
		_, w := utf8.DecodeLastRuneInString(s[i:j])
		if j-w > i {
			return j - w
		}
		return j
	}
	return -1
}

// deepseekMatcher is the third Split of DeepSeek-V3:
// [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
type deepseekMatcher struct{}

func (m deepseekMatcher) appendMatches(dst [][2]int, s string) [][2]int {
	return scanMatches(m, dst, s)
}

func isASCIIPunct(c byte) bool {
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func (deepseekMatcher) matchAt(s string, i int) int {
	if isASCIIPunct(s[i]) {
		j := i + 1
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		if j > i+1 {
			return j
		}
	}
	c, w := runeAt(s, i)
	cl := class(c)
	if c != '\r' && c != '\n' && cl&(clsL|clsP|clsS) == 0 && i+w < len(s) {
		if r, _ := runeAt(s, i+w); class(r)&(clsL|clsM) != 0 {
			return spanClass(s, i+w, clsL|clsM)
		}
	}
	if cl&(clsL|clsM) != 0 {
		return spanClass(s, i, clsL|clsM)
	}
	j := i
	if c == ' ' {
		j++
	}
	if j < len(s) {
		if r, _ := runeAt(s, j); class(r)&(clsP|clsS) != 0 {
			return spanBytes(s, spanClass(s, j, clsP|clsS), "\r\n")
		}
	}
	if cl&clsWS != 0 {
		return whitespaceAlts(s, i)
	}
	return -1
}

// runMatcher matches runs of runes accepted by in, at most max runes long (0: unlimited), as
// \p{N}{1,3} or [\u4e00-\u9fa5...]+ do.
type runMatcher struct {
	in  func(r rune) bool
	max int
}

func (m runMatcher) appendMatches(dst [][2]int, s string) [][2]int { return scanMatches(m, dst, s) }

func (m runMatcher) matchAt(s string, i int) int {
	j := i
	for n := 0; j < len(s) && (m.max == 0 || n < m.max); n++ {
		r, w := runeAt(s, j)
		if !m.in(r) {
			break
		}
		j += w
	}
	if j == i {
		return -1
	}
	return j
}

// literalMatcher matches a fixed string (Split's String pattern).
type literalMatcher struct{ lit string }

func (m literalMatcher) appendMatches(dst [][2]int, s string) [][2]int {
	i := 0
	for {
		k := strings.Index(s[i:], m.lit)
		if k < 0 {
			return dst
		}
		dst = append(dst, [2]int{i + k, i + k + len(m.lit)})
		i += k + len(m.lit)
	}
}

// Known patterns, as written in the tokenizer.json files, that have a hand-written matcher.
const (
	patLlama3   = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patQwen     = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patO200k    = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patGPT2     = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	patDigits3  = `\p{N}{1,3}`
	patDSCJK    = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"
	patDeepseek = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
)

// knownMatcher returns the hand-written matcher of a known pattern.
func knownMatcher(pattern string) (matcher, bool) {
	switch pattern {
	case patLlama3:
		return llamaMatcher{maxDigits: 3}, true
	case patQwen:
		return llamaMatcher{maxDigits: 1}, true
	case patO200k:
		return gpt4oMatcher{}, true
	case patGPT2:
		return gpt2Matcher{}, true
	case patDigits3:
		return runMatcher{in: func(r rune) bool { return class(r)&clsN != 0 }, max: 3}, true
	case patDSCJK:
		return runMatcher{in: func(r rune) bool {
			return (r >= 0x4e00 && r <= 0x9fa5) || (r >= 0x3040 && r <= 0x309f) || (r >= 0x30a0 && r <= 0x30ff)
		}}, true
	case patDeepseek:
		return deepseekMatcher{}, true
	}
	return nil, false
}
