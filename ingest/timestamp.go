package ingest

import (
	"errors"
	"math"
	"strconv"
	"time"
)

// parseTime turns one timestamp value into nanoseconds on the trace's own axis: epoch-based for
// datetimes and epoch numbers, or whatever origin an offset column has. Numbers are decimal text
// (a JSON number or a CSV cell) scaled by unit nanoseconds exactly, without float rounding.
// Datetimes are parsed by hand (this runs once per row; time.Parse would dominate Azure ingest).
func parseTime(b []byte, unit int64) (int64, error) {
	if len(b) == 0 {
		return 0, errors.New("empty timestamp")
	}
	if looksLikeDatetime(b) {
		return parseDatetime(b)
	}
	return parseDecimalScaled(b, unit)
}

// looksLikeDatetime: a date has a '-' after its first character, or a ':' or 'T'.
func looksLikeDatetime(b []byte) bool {
	for i, c := range b {
		if (c == '-' && i > 0 && b[i-1] != 'e' && b[i-1] != 'E') || c == ':' || c == 'T' {
			return true
		}
	}
	return false
}

var errTimeRange = errors.New("timestamp out of range")

// parseDecimalScaled reads [-]digits[.digits][e[+-]digits] and multiplies by unit, exactly when
// the result has no fraction of a nanosecond left (extra digits are truncated).
func parseDecimalScaled(b []byte, unit int64) (int64, error) {
	// Reading the number and scaling it are apart: the first is syntax, the second the
	// exact integer arithmetic that keeps nanoseconds.
	neg, mant, scale, err := scanDecimal(b)
	if err != nil {
		return 0, err
	}
	v, err := scaleDecimal(mant, scale, unit)
	if neg {
		v = -v
	}
	return v, err
}

// scanDecimal reads [-]digits[.digits][e[+-]digits] as mant x 10^scale. Integer digits past
// what mant holds only raise the scale (then the time is out of range); fraction digits past
// it are dropped.
func scanDecimal(b []byte) (neg bool, mant uint64, scale int, err error) {
	i := 0
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i++
	}
	nd := 0 // digits read, integer and fraction
	overflow := false
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if mant > (math.MaxUint64-9)/10 {
			overflow = true
			scale++
		} else {
			mant = mant*10 + uint64(b[i]-'0')
		}
		nd++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if mant <= (math.MaxUint64-9)/10 {
				mant = mant*10 + uint64(b[i]-'0')
				scale--
			}
			nd++
		}
	}
	if nd == 0 {
		return false, 0, 0, errors.New("not a number")
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		e, n := scanExponent(b[i+1:])
		if n < 0 {
			return false, 0, 0, errors.New("not a number")
		}
		scale += e
		i += 1 + n
	}
	if i != len(b) {
		return false, 0, 0, errors.New("not a number")
	}
	if overflow {
		return false, 0, 0, errTimeRange
	}
	return neg, mant, scale, nil
}

// scanExponent reads an exponent's [+-]digits (capped at 10000, far past any time) and the
// bytes it took; n is -1 when there are no digits.
func scanExponent(b []byte) (e, n int) {
	i, sign := 0, 1
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		if b[i] == '-' {
			sign = -1
		}
		i++
	}
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if e < 10000 {
			e = e*10 + int(b[i]-'0')
		}
	}
	if i == start {
		return 0, -1
	}
	return sign * e, i
}

// scaleDecimal is mant x 10^scale x unit, exactly where it fits in an int64.
func scaleDecimal(mant uint64, scale int, unit int64) (int64, error) {
	u := uint64(unit)
	for ; scale > 0; scale-- {
		if mant > math.MaxInt64/10 {
			return 0, errTimeRange
		}
		mant *= 10
	}
	for ; scale < 0; scale++ {
		// Divide the unit first while it is a multiple of ten, keeping precision.
		if u%10 == 0 {
			u /= 10
		} else {
			mant /= 10
		}
	}
	if mant != 0 && u > math.MaxInt64/mant {
		return 0, errTimeRange
	}
	return int64(mant * u), nil
}

// errBadDatetime is made once: a new error on every call cost every good row an allocation.
var errBadDatetime = errors.New("bad datetime (want RFC3339 or 2006-01-02 15:04:05.0000000)")

// parseDatetime reads "YYYY-MM-DD[T ]HH:MM:SS[.fraction][Z|±HH:MM|±HHMM]"; no zone means UTC.
// This covers RFC3339 and the Azure traces' form, "2024-02-07 09:30:12.4817253" (a space, 7
// fractional digits, no zone).
func parseDatetime(b []byte) (int64, error) {
	bad := errBadDatetime
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != ' ' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
		return 0, bad
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 60 {
		return 0, bad
	}
	// After the seconds come an optional fraction and an optional zone, each read on its own.
	frac, rest, ok := datetimeFraction(b[19:])
	if !ok {
		return 0, bad
	}
	offset, ok := datetimeZone(rest)
	if !ok {
		return 0, bad
	}
	days := daysFromCivil(year, month, day)
	secs := days*86400 + int64(hour*3600+minute*60+sec) - offset
	// int64 nanoseconds only reach the years 1678-2262.
	const nsPerSec = int64(1e9)
	if secs > math.MaxInt64/nsPerSec-1 || secs < math.MinInt64/nsPerSec+1 {
		return 0, errTimeRange
	}
	return secs*1e9 + frac, nil
}

// digits reads a fixed-width field of decimal digits.
func digits(s []byte) (int, bool) {
	v := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// datetimeFraction reads the fraction of a second after a datetime's seconds (".5", ",125"; at
// most nanoseconds are kept) and returns it in nanoseconds with what follows it.
func datetimeFraction(b []byte) (frac int64, rest []byte, ok bool) {
	if len(b) == 0 || (b[0] != '.' && b[0] != ',') {
		return 0, b, true
	}
	i, n := 1, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if n < 9 {
			frac = frac*10 + int64(b[i]-'0')
		}
		n++
	}
	if n == 0 {
		return 0, nil, false
	}
	for ; n < 9; n++ {
		frac *= 10
	}
	return frac, b[i:], true
}

// datetimeZone reads what ends a datetime: nothing (UTC), Z, or an offset +hh:mm, +hhmm or +hh,
// and returns the offset in seconds east of UTC. Anything after the zone is refused.
func datetimeZone(b []byte) (offset int64, ok bool) {
	if len(b) == 0 {
		return 0, true
	}
	switch b[0] {
	case 'Z', 'z':
		return 0, len(b) == 1
	case '+', '-':
	default:
		return 0, false
	}
	sign := int64(1)
	if b[0] == '-' {
		sign = -1
	}
	rest := b[1:]
	var hh, mm int
	switch {
	case len(rest) == 5 && rest[2] == ':':
		hh, ok = digits(rest[0:2])
		if ok {
			mm, ok = digits(rest[3:5])
		}
	case len(rest) == 4:
		hh, ok = digits(rest[0:2])
		if ok {
			mm, ok = digits(rest[2:4])
		}
	case len(rest) == 2:
		hh, ok = digits(rest)
	}
	if !ok || hh > 23 || mm > 59 {
		return 0, false
	}
	return sign * int64(hh*3600+mm*60), true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (proleptic Gregorian), after
// Howard Hinnant's algorithm.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// parseInt reads a token count or turn: an integer, or a decimal with a zero fraction
// ("12.0", as pandas exports write), never a float with a fraction.
func parseInt(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, errors.New("empty value")
	}
	i := 0
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i++
	}
	var v int64
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > (math.MaxInt64-9)/10 {
			return 0, errors.New("number too large")
		}
		v = v*10 + int64(b[i]-'0')
	}
	if i == start {
		return 0, errors.New("not an integer: " + strconv.Quote(clip(b)))
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && b[i] == '0'; i++ {
		}
		if i < len(b) && b[i] >= '1' && b[i] <= '9' {
			return 0, errors.New("not an integer: " + strconv.Quote(clip(b)))
		}
	}
	if i != len(b) {
		return 0, errors.New("not an integer: " + strconv.Quote(clip(b)))
	}
	if neg {
		v = -v
	}
	return v, nil
}

// clip shortens a value for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

func durationOf(ns int64) time.Duration { return time.Duration(ns) }
