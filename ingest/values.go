package ingest

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/llm-replay/replay/trace"
)

// row is one parsed input row before validation: the raw time on the input's own axis and the
// record fields (Timestamp still unset).
type row struct {
	t         int64
	hasHashes bool
	rec       trace.Record
}

// converter turns field values into a row; one per source, holding its time unit and the slab
// that hash slices are carved from.
type converter struct {
	unitNs int64
	slab   []uint64
	tmp    []uint64
}

func kindName(k byte) string {
	switch k {
	case kNumber:
		return "a number"
	case kString:
		return "a string"
	case kText:
		return "text"
	case kArray:
		return "an array"
	case kObject:
		return "an object"
	case kBool:
		return "a boolean"
	case kNull:
		return "null"
	}
	return "nothing"
}

// set converts one field's value (b is the value's text: a number's digits, a string's
// unescaped content, a CSV cell, or an array's JSON) into r. A null value counts as missing.
func (c *converter) set(r *row, f int, kind byte, b []byte) error {
	switch f {
	case fTimestamp:
		if kind != kNumber && kind != kString && kind != kText {
			return fmt.Errorf("want a number or a datetime string, got %s", kindName(kind))
		}
		t, err := parseTime(b, c.unitNs)
		if err != nil {
			return fmt.Errorf("%w: %q", err, clip(b))
		}
		r.t = t
	case fPrompt, fOutput, fTurn, fCached:
		if kind != kNumber && kind != kText {
			return fmt.Errorf("want an integer, got %s %s", kindName(kind), strconv.Quote(clip(b)))
		}
		v, err := parseInt(b)
		if err != nil {
			return err
		}
		if v < 0 {
			return fmt.Errorf("negative value %d", v)
		}
		if v > maxCount {
			return fmt.Errorf("absurd value %d", v)
		}
		r.setCount(f, int(v))
	case fHashes:
		if kind != kArray && !(kind == kText && len(b) > 0 && b[0] == '[') {
			return fmt.Errorf("want an array of integers, got %s", kindName(kind))
		}
		h, err := c.hashes(b)
		if err != nil {
			return err
		}
		r.rec.BlockHashes = h
		r.hasHashes = true
	case fSession:
		if kind != kString && kind != kText && kind != kNumber {
			return fmt.Errorf("want a string or number, got %s", kindName(kind))
		}
		r.rec.SessionID = string(b)
	case fModel:
		if kind != kString && kind != kText {
			return fmt.Errorf("want a string, got %s", kindName(kind))
		}
		r.rec.Model = string(b)
	case fOptions:
		return setOptions(r, kind, b)
	}
	return nil
}

// setOptions reads a request's options: a JSON object, or a string or cell holding one.
func setOptions(r *row, kind byte, b []byte) error {
	if kind != kObject && kind != kString && kind != kText {
		return fmt.Errorf("want a JSON object of request options, got %s", kindName(kind))
	}
	o, err := trace.DecodeOptions(b)
	if err != nil {
		return err
	}
	if r.rec.Options != nil && r.rec.Options.CachedTokens != nil && o != nil {
		o.CachedTokens = r.rec.Options.CachedTokens // a cached_tokens column read before the options
	}
	r.rec.Options = o
	return nil
}

var errNotHashArray = errors.New("want an array of non-negative integers")

// hashes parses a JSON array of non-negative integers into a slice carved from the slab, so
// records never share memory with the reader's buffers and most rows allocate nothing.
func (c *converter) hashes(b []byte) ([]uint64, error) {
	c.tmp = c.tmp[:0]
	i := 0
	ws := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
	}
	ws()
	if i >= len(b) || b[i] != '[' {
		return nil, errNotHashArray
	}
	i++
	ws()
	if i < len(b) && b[i] == ']' {
		i++
	} else {
		for {
			ws()
			start := i
			var v uint64
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				d := uint64(b[i] - '0')
				if v > (^uint64(0)-d)/10 {
					return nil, fmt.Errorf("element %d: larger than 64 bits", len(c.tmp))
				}
				v = v*10 + d
				i++
			}
			if i == start || (i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E')) {
				end := i
				for end < len(b) && b[end] != ',' && b[end] != ']' {
					end++
				}
				return nil, fmt.Errorf("element %d: %w, got %q", len(c.tmp), errNotHashArray, clip(b[start:end]))
			}
			c.tmp = append(c.tmp, v)
			ws()
			if i >= len(b) {
				return nil, errNotHashArray
			}
			if b[i] == ']' {
				i++
				break
			}
			if b[i] != ',' {
				return nil, errNotHashArray
			}
			i++
		}
	}
	ws()
	if i != len(b) {
		return nil, errNotHashArray
	}
	return c.carve(c.tmp), nil
}

// take returns hashes that were parsed into the free part of the slab (see jsonlSource.next)
// as the record's own slice, moving the slab past them; hashes that did not fit went to a
// fresh array, and are copied into a new slab like carve does.
func (c *converter) take(h []uint64) []uint64 {
	n := len(h)
	if n == 0 {
		return nil
	}
	if n <= len(c.slab) && &h[0] == &c.slab[0] {
		out := c.slab[:n:n]
		c.slab = c.slab[n:]
		return out
	}
	return c.carve(h)
}

// maxCount is the largest token count or turn a row may hold; larger ones are refused as absurd.
const maxCount = 1 << 40

// setCount stores a checked count in the record field f names (fPrompt, fOutput or fTurn).
func (r *row) setCount(f, v int) {
	switch f {
	case fPrompt:
		r.rec.PromptTokens = v
	case fOutput:
		r.rec.OutputTokens = v
	case fCached:
		if r.rec.Options == nil {
			r.rec.Options = &trace.Options{}
		}
		r.rec.Options.CachedTokens = &v
	default:
		r.rec.Turn = v
	}
}

// setUint is set's fast path for a plain non-negative integer the scanner already parsed:
// it reports false, leaving the row alone, when set must look at the value (out of range).
func (c *converter) setUint(r *row, f int, v uint64) bool {
	switch f {
	case fTimestamp:
		if c.unitNs <= 0 || v > uint64(math.MaxInt64/c.unitNs) {
			return false
		}
		r.t = int64(v) * c.unitNs
	case fPrompt, fOutput, fTurn, fCached:
		if v > maxCount {
			return false
		}
		r.setCount(f, int(v))
	default:
		return false
	}
	return true
}

// carve copies hashes into the slab and returns the copy (nil for none).
func (c *converter) carve(h []uint64) []uint64 {
	n := len(h)
	if n == 0 {
		return nil
	}
	if len(c.slab) < n {
		c.slab = make([]uint64, max(n, 32*1024))
	}
	out := c.slab[:n:n]
	c.slab = c.slab[n:]
	copy(out, h)
	return out
}
