package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// Value kinds a field can come in with.
const (
	kMissing = 0
	kNumber  = 'n'
	kString  = 's' // JSON string, content already unescaped
	kText    = 'c' // CSV cell: untyped text
	kArray   = '['
	kObject  = '{'
	kBool    = 'b'
	kNull    = 'z'
)

// pathNode is one step of the mapped dotted paths: a key, the field it fills when it is the last
// step, and the keys below it.
type pathNode struct {
	key      string
	field    int // -1 for an intermediate step (and the root)
	children []*pathNode
	keys     jsoncur.Keys // the children's keys, in order
}

// buildPaths turns a mapping into the tree of keys the JSON scanner looks for, under a root
// that stands for the line's object.
func buildPaths(m mapping) *pathNode {
	root := &pathNode{field: -1}
	for f, col := range m {
		if col == "" {
			continue
		}
		n := root
		parts, err := SplitPath(col)
		if err != nil { // checkMap refused it already; a preset's paths are plain
			parts = strings.Split(col, ".")
		}
		for _, p := range parts {
			n = n.child(p)
		}
		n.field = f
	}
	root.prepare()
	return root
}

// child returns the child named key, added if it is new.
func (n *pathNode) child(key string) *pathNode {
	for _, c := range n.children {
		if c.key == key {
			return c
		}
	}
	c := &pathNode{key: key, field: -1}
	n.children = append(n.children, c)
	return c
}

// prepare sets the keys of n and of every node below it.
func (n *pathNode) prepare() {
	names := make([]string, len(n.children))
	for i, c := range n.children {
		names[i] = c.key
		c.prepare()
	}
	n.keys = jsoncur.NewKeys(names...)
}

// jsonSpan is where a wanted value sits in the line.
type jsonSpan struct {
	start, end int
	kind       byte
	escaped    bool // a string whose bytes are not its text (jsoncur.Cursor.RawString)
	// isUint says the value is a plain non-negative integer, parsed into num while it was
	// checked, so the converter need not read it again.
	isUint bool
	num    uint64
	// buf, when set, is the decoded JSON string the span indexes into instead of the line: a
	// mapped path went on into a string that holds JSON (decodeInto).
	buf []byte
}

// jsonScanner checks one JSON object per line and records the spans of the mapped paths,
// skipping everything else without allocating. It is strict: anything encoding/json would
// reject is an error with its byte column.
type jsonScanner struct {
	paths *pathNode
	c     jsoncur.Cursor
	vals  [numFields]jsonSpan
	// ints holds the block_hashes array when it was a plain array of non-negative integers,
	// parsed in the same pass that checked it (intsOK); otherwise the converter reparses.
	ints   []uint64
	intsOK bool
	// buf is the decoded string the cursor is reading while a path goes through JSON held in
	// a string (nil: the line itself).
	buf []byte
}

type jsonSyntaxError struct {
	col int
	msg string
}

func (e *jsonSyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.col, e.msg) }

// scan parses line as one JSON object and fills vals.
func (s *jsonScanner) scan(line []byte) error {
	s.c.Reset(line)
	s.vals = [numFields]jsonSpan{}
	s.intsOK = false
	if ch := s.c.Peek(); ch != '{' {
		return lineError(line, s.c.Offset(), fmt.Sprintf("invalid character %q looking for the start of a JSON object", ch))
	}
	s.object(s.paths)
	if err := s.c.End(); err != nil {
		var se *jsoncur.SyntaxError
		errors.As(err, &se)
		return lineError(line, se.Offset, se.Msg)
	}
	return nil
}

// lineError is a syntax error at byte offset at of line, named by its column.
func lineError(line []byte, at int, msg string) error {
	if at >= len(line) {
		return &jsonSyntaxError{col: len(line) + 1, msg: "unexpected end of line (truncated JSON?)"}
	}
	return &jsonSyntaxError{col: at + 1, msg: msg}
}

// object reads the object at the cursor, looking for the children of n.
func (s *jsonScanner) object(n *pathNode) {
	c := &s.c
	for more := c.Object(); more; more = c.NextMember() {
		if k := c.KeyIn(&n.keys); k >= 0 {
			s.value(n.children[k])
		} else {
			c.Skip()
		}
	}
}

// value reads one value; when node maps a field its span is recorded, and when node has
// children an object value is searched for them.
func (s *jsonScanner) value(node *pathNode) {
	c := &s.c
	ch := c.Peek()
	sp := jsonSpan{start: c.Offset()}
	switch {
	case ch == '{':
		sp.kind = kObject
		s.object(node)
	case ch == '[':
		sp.kind = kArray
		if node.field == fHashes {
			if n := s.uintArray(c.Rest()); n > 0 {
				c.Advance(n)
				s.vals[fHashes] = jsonSpan{start: sp.start, end: c.Offset(), kind: kArray}
				s.intsOK = true
				return
			}
		}
		c.Skip()
	case ch == '"':
		raw, escaped := c.RawString()
		sp = jsonSpan{start: sp.start + 1, end: sp.start + 1 + len(raw), kind: kString, escaped: escaped}
		if len(node.children) > 0 {
			s.decodeInto(node, raw, escaped)
		}
	case ch == '-' || (ch >= '0' && ch <= '9'):
		sp.kind = kNumber
		sp.num, sp.isUint = c.Uint64()
	case ch == 't' || ch == 'f':
		sp.kind = kBool
		c.Bool()
	case ch == 'n':
		sp.kind = kNull
		c.Null()
	default:
		c.Skip() // not a value: the cursor says why
	}
	if node.field >= 0 {
		if sp.kind != kString {
			sp.end = c.Offset()
		}
		sp.buf = s.buf
		s.vals[node.field] = sp
		if node.field == fHashes {
			s.intsOK = false // a later duplicate key replaced the fast-parsed array
		}
	}
}

// decodeInto follows node's children into a string that holds a JSON object (LiteLLM's
// spend-log metadata, Azure's backendResponseBody): the string is decoded into a buffer of its
// own, which the spans found inside index into, and read with a cursor of its own. Only a
// mapped path that goes on into a string gets here, so ordinary lines allocate nothing more. A
// string that is not a JSON object leaves the fields under it missing, which names them.
func (s *jsonScanner) decodeInto(node *pathNode, raw []byte, escaped bool) {
	text := raw
	if escaped {
		text = jsoncur.AppendUnquoted(nil, raw)
	} else {
		text = append([]byte(nil), raw...)
	}
	saved, savedBuf := s.c, s.buf
	s.c, s.buf = jsoncur.Cursor{}, text
	s.c.Reset(text)
	if s.c.Peek() == '{' {
		s.object(node)
	}
	inner := s.c.End()
	s.c, s.buf = saved, savedBuf
	if inner != nil {
		for _, c := range node.children {
			s.clear(c) // a string that is not whole JSON gives nothing under it
		}
	}
}

// clear forgets the fields recorded under n.
func (s *jsonScanner) clear(n *pathNode) {
	if n.field >= 0 {
		s.vals[n.field] = jsonSpan{}
	}
	for _, c := range n.children {
		s.clear(c)
	}
}

// uintArray is the fast path for hash arrays: it parses the [n, n, ...] of non-negative
// integers that b starts with into s.ints and returns its length, or 0 on anything else, which
// the cursor's strict reads then handle. It accepts only valid JSON, as Rest requires.
func (s *jsonScanner) uintArray(b []byte) int {
	n := len(b)
	ints := s.ints[:0]
	i := 1
	for i < n && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i < n && b[i] == ']' {
		s.ints = ints
		return i + 1
	}
	for i < n && b[i] == ' ' {
		i++
	}
	for {
		start := i
		v, next := scanDigits(b, i)
		i = next
		// 19 digits always fit in 64 bits; longer numbers and leading zeros go the slow way.
		if k := i - start; uint(k-1) > 18 || (k > 1 && b[start] == '0') {
			return 0
		}
		ints = append(ints, v)
		if i+2 < n && b[i] == ',' {
			i++
			if b[i] == ' ' {
				i++
			}
			if b[i]-'0' <= 9 { // the usual separators, ", " and ",", then a digit
				continue
			}
			for i < n && b[i] == ' ' {
				i++
			}
			continue
		}
		for i < n && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i >= n {
			return 0
		}
		if b[i] == ',' {
			i++
			for i < n && b[i] == ' ' {
				i++
			}
			continue
		}
		if b[i] == ']' {
			s.ints = ints
			return i + 1
		}
		return 0
	}
}

// scanDigits reads the run of decimal digits at b[i:] as one number (which may overflow: the
// caller refuses more than 19 digits) and returns it with the index after it. It is apart from
// uintArray's separators and brackets because it is the part that is tuned: hashes are mostly
// 6-9 digits, so it takes eight at once when the next eight bytes are all digits (the high
// nibble of each is 3 before and after adding 6), combining pairs, quads and octets by
// multiplication, then goes on two digits a step, which halves the loop overhead that is most
// of the cost per digit.
func scanDigits(b []byte, i int) (uint64, int) {
	n := len(b)
	var v uint64
	if i+8 <= n {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&0xF0F0F0F0F0F0F0F0 == 0x3030303030303030 && (x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 == 0x3030303030303030 {
			x &= 0x0F0F0F0F0F0F0F0F
			x = (x * (10<<8 + 1)) >> 8
			x = ((x & 0x00FF00FF00FF00FF) * (100<<16 + 1)) >> 16
			v = ((x & 0x0000FFFF0000FFFF) * (10000<<32 + 1)) >> 32
			i += 8
		}
	}
	for i+1 < n {
		d0, d1 := b[i]-'0', b[i+1]-'0'
		if d0 > 9 {
			return v, i
		}
		if d1 > 9 {
			return v*10 + uint64(d0), i + 1
		}
		v = v*100 + uint64(d0)*10 + uint64(d1)
		i += 2
	}
	if i+1 == n {
		if d := b[i] - '0'; d <= 9 {
			v = v*10 + uint64(d)
			i++
		}
	}
	return v, i
}

// text returns a recorded string's text: its bytes in line, decoded (into the cursor's
// scratch, valid until the next call) when they are escaped.
func (s *jsonScanner) text(line []byte, sp jsonSpan) []byte {
	return s.c.Unquote(sp.in(line), sp.escaped)
}

// in is the span's bytes: in its decoded string, or in line.
func (sp jsonSpan) in(line []byte) []byte {
	if sp.buf != nil {
		return sp.buf[sp.start:sp.end]
	}
	return line[sp.start:sp.end]
}
