package gatewaylog

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The timestamp forms the sources log, each read where its source is (the schemas name
// theirs): epoch numbers in seconds (LiteLLM's startTime as a float), milliseconds,
// microseconds or nanoseconds; RFC 3339 at any precision; a date and time with no zone
// ("2025-01-24 09:20:46.847371", read as UTC, as the sources that write it mean); the same
// with a literal " UTC" (BigQuery's text form of a TIMESTAMP, in exports of Vertex AI's
// request-response log); an epoch in scientific notation ("1.737710446847371E9", BigQuery's
// REST API's form of a TIMESTAMP), read exactly; .NET ticks (100 ns since 0001-01-01, UTC);
// nginx's time_local ("24/Jan/2025:09:20:46 +0000"); and the month-day form of Python's
// logging in vLLM and SGLang ("01-24 09:20:46", no year).

// textLayouts are tried in order on a text timestamp.
var textLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05.999999999 UTC", // BigQuery's TIMESTAMP as text; "UTC" is literal here
	"02/Jan/2006:15:04:05 -0700",
	"2006-01-02 15:04:05,999", // Python logging's asctime
}

// yearless are the layouts of a timestamp with no year.
var yearless = []string{"01-02 15:04:05.999999999", "01-02 15:04:05"}

// ParseText reads a text timestamp in any of the forms above; year is used for one without
// a year (0: an error, since the year cannot be guessed).
func ParseText(s string, year int) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range textLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	for _, l := range yearless {
		if t, err := time.Parse(l, s); err == nil {
			if year <= 0 {
				return time.Time{}, fmt.Errorf("timestamp %q has no year: give --log-year", s)
			}
			return t.AddDate(year-t.Year(), 0, 0).UTC(), nil
		}
	}
	if t, ok := epochDecimal(s); ok {
		return t, nil
	}
	if t, ok := epochDecimal(plainDecimal(s)); ok {
		return t, nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return Epoch(n)
	}
	return time.Time{}, fmt.Errorf("timestamp %q: not a form replay reads (RFC 3339, \"2006-01-02 15:04:05.000000\", nginx's time_local, epoch seconds)", s)
}

// Epoch reads an epoch number by its magnitude: seconds, milliseconds, microseconds or
// nanoseconds since 1970 (a time between 2001 and 2286 in any of them is unambiguous).
func Epoch(n float64) (time.Time, error) {
	a := math.Abs(n)
	switch {
	case math.IsNaN(n) || math.IsInf(n, 0) || a < 1e9:
		return time.Time{}, fmt.Errorf("epoch time %v before 2001: not a time", n)
	case a < 1e11:
		return time.Unix(0, int64(n*1e9)).UTC(), nil
	case a < 1e14:
		return time.Unix(0, int64(n*1e6)).UTC(), nil
	case a < 1e17:
		return time.Unix(0, int64(n*1e3)).UTC(), nil
	case a < 1e19:
		return time.Unix(0, int64(n)).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("epoch time %v: out of range", n)
}

// epochDecimal reads a plain decimal epoch ("1737710446.847371") exactly, to the nanosecond,
// where a float64 would be off by some: the unit by the integer part's magnitude, as Epoch.
func epochDecimal(s string) (time.Time, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	i, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || i < 1e9 || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" {
		return time.Time{}, false
	}
	var unit int64
	switch {
	case i < 1e11:
		unit = 1e9
	case i < 1e14:
		unit = 1e6
	case i < 1e17:
		unit = 1e3
	case frac == "":
		return time.Unix(0, i).UTC(), true
	default:
		return time.Time{}, false
	}
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	}
	return time.Unix(0, i*unit+f*unit/1e9).UTC(), true
}

// plainDecimal rewrites a number in scientific notation with a positive exponent
// ("1.737710446847371E9") as a plain decimal ("1737710446.847371"), so that epochDecimal reads
// it exactly; anything else is returned as is.
func plainDecimal(s string) string {
	mant, exp, ok := strings.Cut(strings.ToUpper(s), "E")
	if !ok {
		return s
	}
	e, err := strconv.Atoi(strings.TrimPrefix(exp, "+"))
	whole, frac, _ := strings.Cut(mant, ".")
	if err != nil || e < 0 || e > 30 || whole == "" || strings.Trim(whole+frac, "0123456789") != "" {
		return s
	}
	digits := whole + frac
	point := len(whole) + e
	for len(digits) < point {
		digits += "0"
	}
	if point == len(digits) {
		return digits
	}
	return digits[:point] + "." + digits[point:]
}

// ticksAtEpoch is 1970-01-01 in .NET ticks (100 ns since 0001-01-01).
const ticksAtEpoch = 621355968000000000

// Ticks reads .NET ticks, exact to the 100 ns.
func Ticks(n int64) (time.Time, error) {
	if n < ticksAtEpoch {
		return time.Time{}, fmt.Errorf("%d ticks: before 1970", n)
	}
	return time.Unix(0, 0).Add(time.Duration(n-ticksAtEpoch) * 100).UTC(), nil
}

// Time reads a value as a timestamp: a number as Epoch, a string as ParseText.
func (v Value) Time(year int) (time.Time, bool, error) {
	if !v.ok {
		return time.Time{}, false, nil
	}
	var t time.Time
	var err error
	switch x := v.v.(type) {
	case json.Number:
		var ok bool
		if t, ok = epochDecimal(string(x)); !ok {
			var f float64
			if f, err = x.Float64(); err == nil {
				t, err = Epoch(f)
			}
		}
	case string:
		t, err = ParseText(x, year)
	default:
		err = fmt.Errorf("want a timestamp, got %s", describe(v.v))
	}
	if err != nil {
		return time.Time{}, true, &FieldError{Field: v.path, Err: err}
	}
	return t, true, nil
}
