package tokenizer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decoder turns a list of token strings into text pieces, as the crate's decode_chain does;
// the pieces are concatenated at the end.
type decoder interface {
	decodeChain(tokens []string) []string
}

type decSequence []decoder

func (q decSequence) decodeChain(t []string) []string {
	for _, d := range q {
		t = d.decodeChain(t)
	}
	return t
}

// byteLevelDec maps byte-level runes back to bytes; invalid UTF-8 becomes U+FFFD.
type byteLevelDec struct{}

func (byteLevelDec) decodeChain(t []string) []string {
	var b []byte
	for _, tok := range t {
		if raw, ok := byteLevelDecode(tok); ok {
			b = append(b, raw...)
		} else {
			b = append(b, tok...)
		}
	}
	return []string{lossy(b)}
}

// lossy decodes b as String::from_utf8_lossy does: each maximal invalid subpart becomes one
// U+FFFD.
func lossy(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			sb.WriteRune(utf8.RuneError)
			b = b[invalidPrefix(b):]
			continue
		}
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

// invalidPrefix returns the length of the maximal invalid subpart at the start of b (at least 1):
// a lead byte followed by as many continuation bytes as could still form a valid sequence.
func invalidPrefix(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(b); i++ {
		if b[i] < lo || b[i] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return i
}

// replaceDec replaces a literal in every token.
type replaceDec struct{ old, new string }

func (d replaceDec) decodeChain(t []string) []string {
	out := make([]string, len(t))
	for i, s := range t {
		out[i] = strings.ReplaceAll(s, d.old, d.new)
	}
	return out
}

// byteFallbackDec turns runs of <0xNN> tokens back into text; a run that is not valid UTF-8
// becomes one U+FFFD per byte.
type byteFallbackDec struct{}

func (byteFallbackDec) decodeChain(t []string) []string {
	var out []string
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, s := range t {
		if len(s) == 6 && strings.HasPrefix(s, "<0x") && s[5] == '>' {
			if v, err := strconv.ParseUint(s[3:5], 16, 8); err == nil {
				pending = append(pending, byte(v))
				continue
			}
		}
		flush()
		out = append(out, s)
	}
	flush()
	return out
}

// fuseDec joins all tokens into one.
type fuseDec struct{}

func (fuseDec) decodeChain(t []string) []string { return []string{strings.Join(t, "")} }

// stripDec removes up to start leading and stop trailing occurrences of a rune from each token.
type stripDec struct {
	content     rune
	start, stop int
}

func (d stripDec) decodeChain(t []string) []string {
	out := make([]string, len(t))
	for i, s := range t {
		r := []rune(s)
		a := 0
		for k := 0; k < d.start && k < len(r) && r[k] == d.content; k++ {
			a = k + 1
		}
		b := len(r)
		for k := 0; k < d.stop; k++ {
			idx := len(r) - k - 1
			if idx < a || r[idx] != d.content {
				break
			}
			b = idx
		}
		out[i] = string(r[a:b])
	}
	return out
}

// metaspaceDec turns ▁ back into spaces and drops the space the encoder prepended.
type metaspaceDec struct {
	replacement string
	prepend     bool
}

func (d metaspaceDec) decodeChain(t []string) []string {
	out := make([]string, len(t))
	for i, s := range t {
		s = strings.ReplaceAll(s, d.replacement, " ")
		if i == 0 && d.prepend {
			s = strings.TrimPrefix(s, " ")
		}
		out[i] = s
	}
	return out
}

func parseDecoder(raw json.RawMessage, where string) (decoder, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c componentJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	switch c.Type {
	case "Sequence":
		var q decSequence
		for i, r := range c.Decoders {
			d, err := parseDecoder(r, fmt.Sprintf("%s.decoders[%d]", where, i))
			if err != nil {
				return nil, err
			}
			if d != nil {
				q = append(q, d)
			}
		}
		return q, nil
	case "ByteLevel":
		return byteLevelDec{}, nil
	case "Replace":
		if c.Pattern == nil || c.Pattern.String == nil || c.Content == nil {
			return nil, fmt.Errorf("%s: Replace decoder needs a String pattern and content", where)
		}
		return replaceDec{*c.Pattern.String, *c.Content}, nil
	case "ByteFallback":
		return byteFallbackDec{}, nil
	case "Fuse":
		return fuseDec{}, nil
	case "Strip":
		if c.Content == nil || utf8.RuneCountInString(*c.Content) != 1 {
			return nil, fmt.Errorf("%s: Strip decoder needs a one-character content", where)
		}
		r, _ := utf8.DecodeRuneInString(*c.Content)
		return stripDec{content: r, start: c.Start, stop: c.Stop}, nil
	case "Metaspace":
		d := metaspaceDec{replacement: "▁", prepend: true}
		if c.Replacement != nil {
			d.replacement = *c.Replacement
		}
		if c.PrependScheme != nil && *c.PrependScheme == "never" {
			d.prepend = false
		} else if c.PrependScheme == nil && c.AddPrefixSpace != nil && !*c.AddPrefixSpace {
			d.prepend = false
		}
		return d, nil
	case "":
		return nil, fmt.Errorf("%s: missing \"type\"", where)
	}
	return nil, fmt.Errorf("%s: unsupported type %q", where, c.Type)
}
