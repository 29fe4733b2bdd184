package jsoncur

import "math"

// Number reads a number and returns its text, checked against JSON's grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; nil on error.
func (c *Cursor) Number() []byte {
	if !c.atNumber() {
		return nil
	}
	start := c.i
	c.num()
	if c.err != nil {
		return nil
	}
	return c.b[start:c.i]
}

// Int64 reads a number; ok reports that it is an integer (no fraction or exponent, "-0" is 0)
// within int64, as strconv.ParseInt(text, 10, 64) would take it. The whole number is read
// either way.
func (c *Cursor) Int64() (v int64, ok bool) {
	if c.Peek()-'0' <= 9 {
		if u, end := plainUint(c.b, c.i); end >= 0 && int64(u) >= 0 {
			c.i = end
			return int64(u), true
		}
	}
	if !c.atNumber() {
		return 0, false
	}
	mag, neg, isInt := c.num()
	switch {
	case !isInt:
		return 0, false
	case neg && mag <= 1<<63:
		return int64(-mag), true // two's complement: -(1<<63) comes out as MinInt64
	case !neg && mag <= math.MaxInt64:
		return int64(mag), true
	}
	return 0, false
}

// Uint64 reads a number; ok reports that it is a non-negative integer without a sign within
// uint64, as strconv.ParseUint(text, 10, 64) would take it. The whole number is read either way.
func (c *Cursor) Uint64() (v uint64, ok bool) {
	if c.Peek()-'0' <= 9 {
		if u, end := plainUint(c.b, c.i); end >= 0 {
			c.i = end
			return u, true
		}
	}
	if !c.atNumber() {
		return 0, false
	}
	mag, neg, isInt := c.num()
	if !isInt || neg {
		return 0, false
	}
	return mag, true
}

// plainUint reads the most common number, 1 to 19 digits without a sign, a leading zero, a
// fraction or an exponent (so it fits in 64 bits), at i: its value and end, or end -1 for
// anything else, which num then reads.
func plainUint(b []byte, i int) (v uint64, end int) {
	start := i
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		v = v*10 + uint64(b[i]-'0')
	}
	if n := i - start; n > 19 || n > 1 && b[start] == '0' || i < len(b) && (b[i] == '.' || b[i]|0x20 == 'e') {
		return 0, -1
	}
	return v, i
}

func (c *Cursor) atNumber() bool {
	if p := c.Peek(); p == '-' || p-'0' <= 9 {
		return true
	}
	c.failAt(c.i, "looking for beginning of number")
	return false
}

// num reads the number at c.i. isInt reports an integer literal whose magnitude mag fits in 64
// bits; the digits are summed as they are checked, so integers cost one pass.
func (c *Cursor) num() (mag uint64, neg, isInt bool) {
	b, i := c.b, c.i
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
		isInt = true
	case i < len(b) && b[i]-'1' <= 8:
		start := i
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			mag = mag*10 + uint64(b[i]-'0')
		}
		// Up to 19 digits always fit; 20 fit up to MaxUint64 (equal lengths compare as numbers).
		isInt = i-start < 20 || i-start == 20 && string(b[start:i]) <= "18446744073709551615"
	default:
		c.failAt(i, "in numeric literal")
		return 0, false, false
	}
	if i < len(b) && b[i] == '.' {
		isInt = false
		if i++; i >= len(b) || b[i]-'0' > 9 {
			c.failAt(i, "after decimal point in numeric literal")
			return 0, false, false
		}
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		isInt = false
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i]-'0' > 9 {
			c.failAt(i, "in exponent of numeric literal")
			return 0, false, false
		}
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	}
	c.i = i
	return mag, neg, isInt
}
