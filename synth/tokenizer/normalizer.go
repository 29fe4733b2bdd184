package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites text before pre-tokenization, as the crate's normalizers do. The crate
// keeps alignments to the original text; only the ids matter here, so plain strings suffice.
type normalizer interface {
	normalize(s string) string
}

type normalizerFunc func(s string) string

func (f normalizerFunc) normalize(s string) string { return f(s) }

type normSequence []normalizer

func (q normSequence) normalize(s string) string {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

func parseNormalizer(raw json.RawMessage, where string) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c componentJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	switch c.Type {
	case "Sequence":
		var q normSequence
		for i, r := range c.Normalizers {
			n, err := parseNormalizer(r, fmt.Sprintf("%s.normalizers[%d]", where, i))
			if err != nil {
				return nil, err
			}
			if n != nil {
				q = append(q, n)
			}
		}
		return fuseSequence(q), nil
	case "NFC":
		return normalizerFunc(oldNorm(norm.NFC)), nil
	case "NFD":
		return normalizerFunc(oldNorm(norm.NFD)), nil
	case "NFKC":
		return normalizerFunc(oldNorm(norm.NFKC)), nil
	case "NFKD":
		return normalizerFunc(oldNorm(norm.NFKD)), nil
	case "Lowercase":
		return normalizerFunc(strings.ToLower), nil
	case "Strip":
		left, right := c.StripLeft == nil || *c.StripLeft, c.StripRight == nil || *c.StripRight
		return normalizerFunc(func(s string) string {
			if left {
				s = strings.TrimLeftFunc(s, unicode.IsSpace)
			}
			if right {
				s = strings.TrimRightFunc(s, unicode.IsSpace)
			}
			return s
		}), nil
	case "Prepend":
		if c.Prepend == nil {
			return nil, fmt.Errorf("%s: Prepend has no \"prepend\"", where)
		}
		return prependNorm(*c.Prepend), nil
	case "Replace":
		return parseReplace(c, where)
	case "":
		return nil, fmt.Errorf("%s: missing \"type\"", where)
	}
	return nil, fmt.Errorf("%s: unsupported type %q", where, c.Type)
}

// parseReplace is the Replace normalizer, apart from the simple ones because it is two: a
// literal pattern replaced everywhere, or a regex whose every match is replaced.
func parseReplace(c componentJSON, where string) (normalizer, error) {
	if c.Content == nil || c.Pattern == nil {
		return nil, fmt.Errorf("%s: Replace needs \"pattern\" and \"content\"", where)
	}
	content := *c.Content
	if c.Pattern.String != nil {
		old := *c.Pattern.String
		if old == "" {
			return nil, fmt.Errorf("%s: Replace pattern is empty", where)
		}
		return replaceNorm{old: old, content: content}, nil
	}
	if c.Pattern.Regex == nil {
		return nil, fmt.Errorf("%s: Replace pattern needs \"String\" or \"Regex\"", where)
	}
	m, err := compilePattern(*c.Pattern.Regex)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return normalizerFunc(func(s string) string {
		ms := m.appendMatches(nil, s)
		if len(ms) == 0 {
			return s
		}
		var b strings.Builder
		prev := 0
		for _, r := range ms {
			b.WriteString(s[prev:r[0]])
			b.WriteString(content)
			prev = r[1]
		}
		b.WriteString(s[prev:])
		return b.String()
	}), nil
}
