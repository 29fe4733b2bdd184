package tokenizer

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/dlclark/regexp2"
)

// compilePattern returns a matcher for an Oniguruma pattern from tokenizer.json: a hand-written
// one for the patterns of the known model families (exact, and several times faster), else
// regexp2, whose syntax is close to Oniguruma's. regexp2 takes \p{..} from Go's Unicode tables,
// which are older than the reference's, so the pattern is rewritten to add the missing code
// points (see onigClasses). Known gap of this fallback: (?i) does not fold "ſ" to "s".
func compilePattern(pattern string) (matcher, error) {
	if m, ok := knownMatcher(pattern); ok {
		return m, nil
	}
	return compileRegexp2(pattern)
}

func compileRegexp2(pattern string) (matcher, error) {
	re, err := regexp2.Compile(widenClasses(pattern), regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", pattern, err)
	}
	re.MatchTimeout = 5 * time.Second
	return regexMatcher{re}, nil
}

// regexMatcher runs a regexp2 pattern. regexp2 counts in runes; the offsets are turned back
// into bytes.
type regexMatcher struct{ re *regexp2.Regexp }

func (m regexMatcher) appendMatches(dst [][2]int, s string) [][2]int {
	mt, err := m.re.FindStringMatch(s)
	if err != nil || mt == nil {
		return dst
	}
	// byteAt[k] is the byte offset of rune k.
	byteAt := make([]int, 0, len(s)+1)
	for i := range s {
		byteAt = append(byteAt, i)
	}
	byteAt = append(byteAt, len(s))
	lastEnd := -1
	for mt != nil {
		a, b := mt.Index, mt.Index+mt.Length
		if a < 0 || a > b || b > len(byteAt)-1 {
			break
		}
		// Like Oniguruma's find_iter, drop an empty match right after the previous match.
		if !(a == b && a == lastEnd) {
			dst = append(dst, [2]int{byteAt[a], byteAt[b]})
		}
		lastEnd = b
		if mt, err = m.re.FindNextMatch(mt); err != nil {
			break
		}
	}
	return dst
}

// widenClasses rewrites each \p{X} of a pattern so that it also matches the code points the
// reference's Unicode tables put in X and Go's do not: inside a bracket class the extra ranges
// are appended, outside one \p{X} becomes [\p{X}extra]. \P{X} is left alone.
func widenClasses(pattern string) string {
	extras := classExtras()
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			if pattern[i+1] == 'p' {
				name, n := propertyName(pattern[i+2:])
				if ex := extras[name]; n > 0 && ex != "" {
					prop := pattern[i : i+2+n]
					if inClass {
						b.WriteString(prop + ex)
					} else {
						b.WriteString("[" + prop + ex + "]")
					}
					i += 1 + n
					continue
				}
			}
			b.WriteString(pattern[i : i+2])
			i++
			continue
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal.
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		case c == ']' && inClass:
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// propertyName reads "{Name}" or a one-letter "L" after \p and returns the name and the
// length read.
func propertyName(s string) (string, int) {
	if s == "" {
		return "", 0
	}
	if s[0] != '{' {
		return s[:1], 1
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", 0
	}
	return s[1:end], end + 1
}

var (
	extrasOnce sync.Once
	extrasMap  map[string]string
)

// classExtras returns, per property name, the code points of our (reference-probed) tables
// that Go's unicode package lacks, written as class ranges.
func classExtras() map[string]string {
	extrasOnce.Do(func() {
		tables := map[string][][2]rune{"L": onigL, "Lu": onigLu, "Ll": onigLl, "Lt": onigLt, "Lm": onigLm,
			"Lo": onigLo, "M": onigM, "N": onigN, "P": onigP, "S": onigS}
		extrasMap = map[string]string{}
		for name, tab := range tables {
			goTab := unicode.Categories[name]
			var b strings.Builder
			start := rune(-1)
			flush := func(end rune) {
				if start < 0 {
					return
				}
				b.WriteRune(start)
				if end > start {
					b.WriteByte('-')
					b.WriteRune(end)
				}
				start = -1
			}
			for _, r := range tab {
				for c := r[0]; c <= r[1]; c++ {
					if goTab != nil && unicode.Is(goTab, c) {
						flush(c - 1)
						continue
					}
					if start < 0 {
						start = c
					}
				}
				flush(r[1])
			}
			extrasMap[name] = b.String()
			if name == "L" {
				extrasMap["Letter"] = extrasMap[name]
			}
		}
	})
	return extrasMap
}
