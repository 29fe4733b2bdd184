package ingest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
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
	field    int // -1 for an intermediate step
	children []*pathNode
	// plain: the key has no quote, backslash or control character, so a JSON key is this key
	// exactly when its raw bytes are, and the scanner can compare them without unescaping.
	plain bool
}

// buildPaths turns a mapping into the tree of keys the JSON scanner looks for.
func buildPaths(m mapping) []*pathNode {
	var root []*pathNode
	for f, col := range m {
		if col == "" {
			continue
		}
		level := &root
		parts := strings.Split(col, ".")
		for i, p := range parts {
			var n *pathNode
			for _, c := range *level {
				if c.key == p {
					n = c
				}
			}
			if n == nil {
				n = &pathNode{key: p, field: -1, plain: plainKey(p)}
				*level = append(*level, n)
			}
			if i == len(parts)-1 {
				n.field = f
			}
			level = &n.children
		}
	}
	return root
}

func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}

// jsonSpan is where a wanted value sits in the line.
type jsonSpan struct {
	start, end int
	kind       byte
	escaped    bool // a string with backslash escapes
	// isUint says the value is a plain non-negative integer of at most 18 digits, parsed into
	// num while it was scanned, so the converter need not read it again.
	isUint bool
	num    uint64
}

// jsonScanner validates one JSON object per line and records the spans of the mapped paths,
// skipping everything else without allocating. It is strict: anything encoding/json would
// reject is an error with its byte column.
type jsonScanner struct {
	paths []*pathNode
	b     []byte
	i     int
	depth int
	vals  [numFields]jsonSpan
	// ints holds the block_hashes array when it was a plain array of non-negative integers,
	// parsed in the same pass that validated it (intsOK); otherwise the converter reparses.
	ints   []uint64
	intsOK bool
}

const maxJSONDepth = 512

type jsonSyntaxError struct {
	col int
	msg string
}

func (e *jsonSyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.col, e.msg) }

func (s *jsonScanner) fail(msg string) error {
	if s.i >= len(s.b) {
		return &jsonSyntaxError{col: s.i + 1, msg: "unexpected end of line (truncated JSON?)"}
	}
	return &jsonSyntaxError{col: s.i + 1, msg: msg}
}

func (s *jsonScanner) failChar(what string) error {
	if s.i >= len(s.b) {
		return s.fail("")
	}
	return s.fail(fmt.Sprintf("invalid character %q %s", s.b[s.i], what))
}

// scan parses line as one JSON object and fills vals.
func (s *jsonScanner) scan(line []byte) error {
	s.b, s.i, s.depth = line, 0, 0
	s.vals = [numFields]jsonSpan{}
	s.intsOK = false
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return s.failChar("looking for the start of a JSON object")
	}
	if err := s.object(s.paths); err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.b) {
		return s.failChar("after the JSON object")
	}
	return nil
}

func (s *jsonScanner) ws() {
	// The hot loops here and in str and number keep the position in a local: s.i lives in
	// memory, and updating it per byte cost a load and a store each.
	b, i := s.b, s.i
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	s.i = i
}

// object parses {...} at s.i; paths are the keys wanted at this level (nil: skip all).
func (s *jsonScanner) object(paths []*pathNode) error {
	s.depth++
	if s.depth > maxJSONDepth {
		return s.fail("nested too deeply")
	}
	s.i++ // '{'
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return nil
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.failChar("looking for an object key")
		}
		// A wanted key is usually written plainly: compare its bytes in place, which checks
		// the key as str would (no quote, backslash or control byte inside, a closing quote).
		var node *pathNode
		for _, p := range paths {
			if e := s.i + 1 + len(p.key); p.plain && e < len(s.b) && s.b[e] == '"' && string(s.b[s.i+1:e]) == p.key {
				node = p
				s.i = e + 1
				break
			}
		}
		if node == nil {
			var err error
			if node, err = s.key(paths); err != nil {
				return err
			}
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.failChar("after an object key")
		}
		s.i++
		s.ws()
		if err := s.value(node); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return nil
		default:
			return s.failChar("after an object value")
		}
	}
}

// key parses an object key at s.i and returns the path it names, if any.
func (s *jsonScanner) key(paths []*pathNode) (*pathNode, error) {
	ks, ke, esc, err := s.str()
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	key := s.b[ks:ke]
	var unq string
	if esc {
		if unq, err = unquote(s.b[ks-1 : ke+1]); err != nil {
			return nil, s.fail("bad escape in key")
		}
	}
	for _, p := range paths {
		if (!esc && string(key) == p.key) || (esc && unq == p.key) {
			return p, nil
		}
	}
	return nil, nil
}

// value parses one value; when node maps a field its span is recorded, and when node has
// children an object value is searched for them.
func (s *jsonScanner) value(node *pathNode) error {
	if s.i >= len(s.b) {
		return s.fail("")
	}
	start := s.i
	var kind byte
	esc := false
	c := s.b[s.i]
	switch {
	case c == '{':
		kind = kObject
		var kids []*pathNode
		if node != nil {
			kids = node.children
		}
		if err := s.object(kids); err != nil {
			return err
		}
	case c == '[':
		kind = kArray
		if node != nil && node.field == fHashes && s.uintArray() {
			s.vals[fHashes] = jsonSpan{start: start, end: s.i, kind: kArray}
			s.intsOK = true
			return nil
		}
		s.i = start
		if err := s.array(); err != nil {
			return err
		}
	case c == '"':
		kind = kString
		ss, se, e, err := s.str()
		if err != nil {
			return err
		}
		if node != nil && node.field >= 0 {
			s.vals[node.field] = jsonSpan{start: ss, end: se, kind: kString, escaped: e}
			if node.field == fHashes {
				s.intsOK = false
			}
		}
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		kind = kNumber
		if node != nil && node.field >= 0 {
			if v, ok := s.plainUint(); ok {
				s.vals[node.field] = jsonSpan{start: start, end: s.i, kind: kNumber, isUint: true, num: v}
				return nil
			}
		}
		if err := s.number(); err != nil {
			return err
		}
	case c == 't':
		kind = kBool
		if err := s.literal("true"); err != nil {
			return err
		}
	case c == 'f':
		kind = kBool
		if err := s.literal("false"); err != nil {
			return err
		}
	case c == 'n':
		kind = kNull
		if err := s.literal("null"); err != nil {
			return err
		}
	default:
		return s.failChar("looking for a value")
	}
	if node != nil && node.field >= 0 {
		s.vals[node.field] = jsonSpan{start: start, end: s.i, kind: kind, escaped: esc}
		if node.field == fHashes {
			s.intsOK = false // a later duplicate key replaced the fast-parsed array
		}
	}
	return nil
}

func (s *jsonScanner) array() error {
	s.depth++
	if s.depth > maxJSONDepth {
		return s.fail("nested too deeply")
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return nil
	}
	for {
		s.ws()
		if err := s.value(nil); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return nil
		default:
			return s.failChar("after an array element")
		}
	}
}

// uintArray is the fast path for hash arrays: it parses [n, n, ...] of non-negative
// integers into s.ints and reports false (leaving s.i anywhere) on anything else, which the
// strict generic path then handles.
func (s *jsonScanner) uintArray() bool {
	b := s.b
	n := len(b)
	ints := s.ints[:0]
	i := s.i + 1
	for i < n && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i < n && b[i] == ']' {
		s.i, s.ints = i+1, ints
		return true
	}
	for i < n && b[i] == ' ' {
		i++
	}
	for {
		start := i
		var v uint64
		// Hashes are mostly 6-9 digits: take eight at once when the next eight bytes are all
		// digits (the high nibble of each is 3 before and after adding 6), combining pairs,
		// quads and octets by multiplication, then go on two digits a step, which halves the
		// loop overhead that is most of the cost per digit.
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
				break
			}
			if d1 > 9 {
				v = v*10 + uint64(d0)
				i++
				break
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
		// 19 digits always fit in 64 bits; longer numbers and leading zeros go the slow way.
		if k := i - start; uint(k-1) > 18 || (k > 1 && b[start] == '0') {
			return false
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
			return false
		}
		if b[i] == ',' {
			i++
			for i < n && b[i] == ' ' {
				i++
			}
			continue
		}
		if b[i] == ']' {
			s.i, s.ints = i+1, ints
			return true
		}
		return false
	}
}

// plainUint parses a number at s.i that is only digits (at most 18, no leading zero) and
// moves past it; for anything else (sign, fraction, exponent, more digits) it reports false
// without moving, and number does the checking.
func (s *jsonScanner) plainUint() (uint64, bool) {
	b, i := s.b, s.i
	var v uint64
	for i < len(b) {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		v = v*10 + uint64(d)
		i++
	}
	k := i - s.i
	if k == 0 || k > 18 || (k > 1 && b[s.i] == '0') {
		return 0, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, false
	}
	s.i = i
	return v, true
}

// str parses a string at s.i and returns its content's bounds (without quotes).
func (s *jsonScanner) str() (start, end int, escaped bool, err error) {
	b := s.b
	i := s.i + 1 // '"'
	start = i
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return start, i, escaped, nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(b) {
				s.i = i
				return 0, 0, false, s.fail("")
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(b) || !isHex(b[i]) {
						s.i = i
						return 0, 0, false, s.failChar("in \\u escape")
					}
					i++
				}
			default:
				s.i = i
				return 0, 0, false, s.failChar("in string escape")
			}
		case c < 0x20:
			s.i = i
			return 0, 0, false, s.failChar("in string literal")
		default:
			i++
		}
	}
	s.i = i
	return 0, 0, false, s.fail("")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number checks JSON number grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func (s *jsonScanner) number() error {
	b, i := s.b, s.i
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		s.i = i
		return s.fail("")
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		s.i = i
		return s.failChar("in numeric literal")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.i = i
			return s.failChar("after decimal point in numeric literal")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.i = i
			return s.failChar("in exponent of numeric literal")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return nil
}

func (s *jsonScanner) literal(word string) error {
	if len(s.b)-s.i < len(word) {
		if string(s.b[s.i:]) == word[:len(s.b)-s.i] {
			s.i = len(s.b)
			return s.fail("")
		}
	}
	for k := 0; k < len(word); k++ {
		if s.i >= len(s.b) || s.b[s.i] != word[k] {
			return s.failChar("in literal " + word)
		}
		s.i++
	}
	return nil
}

// jsonString returns a recorded string span's content, unescaping when needed.
func (s *jsonScanner) jsonString(sp jsonSpan) ([]byte, error) {
	if !sp.escaped {
		return s.b[sp.start:sp.end], nil
	}
	out, err := unquote(s.b[sp.start-1 : sp.end+1])
	return []byte(out), err
}

// unquote decodes a quoted JSON string with escapes (rare: kept out of the hot path so its
// result does not make every key allocate).
//
//go:noinline
func unquote(q []byte) (string, error) {
	var out string
	err := json.Unmarshal(q, &out)
	return out, err
}
