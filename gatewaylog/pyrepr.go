package gatewaylog

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A reader of Python reprs, as Python servers print their objects into their logs (vLLM's
// "params: SamplingParams(n=1, temperature=0.7, stop=['\n'], ...)", its prompt's %r, its token
// id lists). It reads the forms repr and str give the built-in types and the dataclass-like
// classes those logs hold: strings in either quote with their backslash escapes (and b''
// bytes), integers and floats (inf and nan as Python spells them), None, True, False, lists,
// tuples, sets, dicts, and calls Name(arg, key=value, ...) (a dataclass's, a msgspec Struct's
// or a class's own __repr__). What repr gives an object it knows nothing of ("<function f at
// 0x7f...>", an enum's "<Kind.A: 1>") is kept as its text, unread.
//
// The values come out in the shapes Record's decoded JSON has (string, bool, nil,
// json.Number, []any, map[string]any), so Value's accessors read them; a call is a
// map[string]any of its keyword arguments, plus pyCallName for its name and pyArgs for its
// positional arguments when it has any.

const (
	// pyCallName is the member of a call's map holding its name ("SamplingParams").
	pyCallName = "(name)"
	// pyArgs is the member holding a call's positional arguments, as a list.
	pyArgs = "(args)"
	// pyMaxDepth bounds nesting, so a hostile line cannot exhaust the stack.
	pyMaxDepth = 100
)

// pyOpaque is what repr printed for an object it has no literal form for, kept as text.
type pyOpaque string

// pyParser reads one repr from s at i.
type pyParser struct {
	s     string
	i     int
	depth int
	// elided reads SGLang's cut values: its request logger prints a string or list longer
	// than its limit as its head and tail around " ... " ('ab' ... 'yz', [1, 2] ... [8, 9]),
	// which is no repr; read as one value, kept as pyElided (its length is unknown). Off for
	// vLLM, whose values are never followed by " ... ".
	elided bool
}

// pyElided is a value the log cut to its head and tail: present, but unread.
const pyElided = pyOpaque("...")

// ParsePyRepr reads s as one Python repr, all of it (white space around it aside).
func ParsePyRepr(s string) (any, error) {
	p := &pyParser{s: s}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.errf("unexpected %q after the value", p.rest(12))
	}
	return v, nil
}

// readPyPrefix reads one repr at the start of s and says where it ended, for a log line that
// goes on after it ("prompt: 'hi', params: ...").
func readPyPrefix(s string) (any, int, error) {
	p := &pyParser{s: s}
	v, err := p.value()
	return v, p.i, err
}

// readPyElided is readPyPrefix reading SGLang's cut values too (pyParser.elided).
func readPyElided(s string) (any, int, error) {
	p := &pyParser{s: s, elided: true}
	v, err := p.value()
	return v, p.i, err
}

func (p *pyParser) errf(format string, args ...any) error {
	return fmt.Errorf("python repr at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *pyParser) rest(n int) string {
	r := p.s[p.i:]
	if len(r) > n {
		r = r[:n] + "..."
	}
	return r
}

func (p *pyParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// value reads any value at p.i, and, when the parser reads cut values, a cut one whole.
func (p *pyParser) value() (any, error) {
	v, err := p.one()
	if err != nil || !p.elided || !strings.HasPrefix(p.s[p.i:], " ... ") {
		return v, err
	}
	p.i += len(" ... ")
	if _, err := p.one(); err != nil {
		return nil, err
	}
	return pyElided, nil
}

// one reads one value at p.i.
func (p *pyParser) one() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errf("value missing at the end")
	}
	if p.depth >= pyMaxDepth {
		return nil, p.errf("nested deeper than %d", pyMaxDepth)
	}
	p.depth++
	defer func() { p.depth-- }()
	c := p.s[p.i]
	switch {
	case c == '\'' || c == '"':
		return p.str()
	case (c == 'b' || c == 'u') && p.i+1 < len(p.s) && (p.s[p.i+1] == '\'' || p.s[p.i+1] == '"'):
		p.i++ // b'...' (bytes) and u'...' read as their text
		return p.str()
	case c == '[':
		return p.seq('[', ']')
	case c == '(':
		return p.seq('(', ')')
	case c == '{':
		return p.braces()
	case c == '<':
		return p.opaque()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	case isIdentStart(c):
		return p.name()
	}
	return nil, p.errf("unexpected %q", p.rest(12))
}

// str reads a quoted string with Python's escapes; repr writes only the ones decoded here.
func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			break
		}
		e := p.s[p.i+1]
		p.i += 2
		switch e {
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '0':
			b.WriteByte(0)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.i+n > len(p.s) {
				return nil, p.errf("\\%c escape cut short", e)
			}
			r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
			if err != nil || r > utf8.MaxRune {
				return nil, p.errf("bad \\%c escape %q", e, p.s[p.i:p.i+n])
			}
			p.i += n
			b.WriteRune(rune(r))
		default:
			return nil, p.errf("unknown escape \\%c", e)
		}
	}
	return nil, p.errf("string not closed")
}

// seq reads a list or tuple (a tuple's trailing comma too) as a list.
func (p *pyParser) seq(open, close byte) (any, error) {
	p.i++
	out := []any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == close {
			p.i++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if err := p.sep(close); err != nil {
			return nil, err
		}
	}
}

// sep reads the ", " between members, or stops before the closing bracket.
func (p *pyParser) sep(close byte) error {
	p.space()
	if p.i >= len(p.s) {
		return p.errf("%q missing at the end", close)
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return nil
	case close:
		return nil
	}
	return p.errf("want ',' or %q, got %q", close, p.rest(12))
}

// braces reads a dict ({k: v}) or a set ({a, b}, a list here); keys become their text.
func (p *pyParser) braces() (any, error) {
	p.i++
	dict := map[string]any{}
	var set []any
	for n := 0; ; n++ {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			if set != nil {
				return set, nil
			}
			return dict, nil
		}
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ':' && set == nil {
			p.i++
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			dict[keyText(k)] = v
		} else if n == 0 || set != nil {
			set = append(set, k)
		} else {
			return nil, p.errf("a dict member without ':'")
		}
		if err := p.sep('}'); err != nil {
			return nil, err
		}
	}
}

// keyText is a dict key as a member name: a string as itself, anything else as JSON would
// spell it (logit_bias's {0: -1.0} has integer keys).
func keyText(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case json.Number:
		return string(x)
	case pyOpaque:
		return string(x)
	}
	b, _ := json.Marshal(k)
	return string(b)
}

// opaque reads "<...>" up to its matching '>', as text.
func (p *pyParser) opaque() (any, error) {
	start, depth := p.i, 0
	for ; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				p.i++
				return pyOpaque(p.s[start:p.i]), nil
			}
		}
	}
	return nil, p.errf("'<' not closed")
}

// number reads an int or float (with an exponent, or -inf) as a json.Number.
func (p *pyParser) number() (any, error) {
	start := p.i
	if c := p.s[p.i]; c == '-' || c == '+' {
		p.i++
		if strings.HasPrefix(p.s[p.i:], "inf") || strings.HasPrefix(p.s[p.i:], "nan") {
			p.i += 3
			return json.Number(p.s[start:p.i]), nil
		}
	}
	for p.i < len(p.s) && strings.IndexByte("0123456789._eE+-", p.s[p.i]) >= 0 {
		if c := p.s[p.i]; (c == '+' || c == '-') && p.s[p.i-1] != 'e' && p.s[p.i-1] != 'E' {
			break
		}
		p.i++
	}
	text := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if _, err := strconv.ParseFloat(text, 64); err != nil {
		return nil, p.errf("bad number %q", p.s[start:p.i])
	}
	return json.Number(strings.TrimPrefix(text, "+")), nil
}

// name reads None, True, False, inf, nan, a call Name(...), or another bare name (kept as
// text: an enum's str, a class's name).
func (p *pyParser) name() (any, error) {
	start := p.i
	for p.i < len(p.s) && (isIdentStart(p.s[p.i]) || (p.s[p.i] >= '0' && p.s[p.i] <= '9') || p.s[p.i] == '.') {
		p.i++
	}
	id := p.s[start:p.i]
	if p.i < len(p.s) && p.s[p.i] == '(' {
		return p.call(id)
	}
	switch id {
	case "None":
		return nil, nil
	case "True":
		return true, nil
	case "False":
		return false, nil
	case "inf", "nan":
		return json.Number(id), nil
	}
	return pyOpaque(id), nil
}

// call reads Name(arg, ..., key=value, ...) into a map of its keyword arguments.
func (p *pyParser) call(name string) (any, error) {
	p.i++
	out := map[string]any{pyCallName: name}
	var args []any
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ')' {
			p.i++
			if args != nil {
				out[pyArgs] = args
			}
			return out, nil
		}
		if key, ok := p.keyword(); ok {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			out[key] = v
		} else {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			args = append(args, v)
		}
		if err := p.sep(')'); err != nil {
			return nil, err
		}
	}
}

// keyword reads "key=" where one is, and leaves p.i alone where none is.
func (p *pyParser) keyword() (string, bool) {
	j := p.i
	for j < len(p.s) && (isIdentStart(p.s[j]) || (j > p.i && p.s[j] >= '0' && p.s[j] <= '9')) {
		j++
	}
	if j == p.i || j >= len(p.s) || p.s[j] != '=' || (j+1 < len(p.s) && p.s[j+1] == '=') {
		return "", false
	}
	key := p.s[p.i:j]
	p.i = j + 1
	return key, true
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
