package require

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/llm-replay/replay/stats"
)

// durationUnits are the units a duration limit may carry, canonical spelling first.
// A limit may also be any duration time.ParseDuration reads (1h30m, 1m0.5s), read in ms.
const durationUnits = "ns, us, µs, ms, s, m or h, or a Go duration such as 1h30m"

// decimal is the number syntax of a limit. strconv.ParseFloat alone would also take "inf",
// "nan", hex floats and underscores, none of which a limit in a CI gate should be.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// parseLimit splits a limit such as "500ms", "+10 %" or "95" into its number and unit.
// Which units a term accepts is the term's to say (unitFor).
func parseLimit(text string) (float64, string, error) {
	if text == "" {
		return 0, "", fmt.Errorf("no limit after the comparison (want e.g. 500ms)")
	}
	num, unit := splitUnit(text)
	if !decimal.MatchString(num) {
		// A compound duration (1h30m, 2m0.5s) has no single unit to keep: it is held in ms,
		// the unit summary.json uses, so that it formats back to a limit that reads the same.
		if d, err := time.ParseDuration(text); err == nil {
			return float64(d) / float64(time.Millisecond), "ms", nil
		}
		return 0, "", fmt.Errorf("limit %q: want a number, e.g. 500ms, 95%% or 3, or a Go duration, e.g. 1h30m", text)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !stats.IsFinite(v) {
		return 0, "", fmt.Errorf("limit %q: number out of range", text)
	}
	if v == 0 {
		v = 0 // -0 reads and prints as 0
	}
	switch unit {
	case "µs", "μs": // micro sign and Greek mu, as time.ParseDuration takes both
		unit = "us"
	}
	return v, unit, nil
}

// splitUnit cuts the trailing letters (or %) off a limit.
func splitUnit(text string) (num, unit string) {
	end := len(text)
	for end > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:end])
		if !unicode.IsLetter(r) && r != '%' {
			break
		}
		end -= size
	}
	return strings.TrimSpace(text[:end]), text[end:]
}

// unitFor checks a limit's unit against what the term measures and returns the canonical
// unit: a bare number is read in the unit summary.json uses for the term.
func (t term) unitFor(unit string, v float64) (string, error) {
	name := t.String()
	if v < 0 && t.kind != kindDelta {
		return "", fmt.Errorf("%s limit %v: want a non-negative number", name, v)
	}
	switch t.kind {
	case kindLatency:
		if unit == "" {
			unit = "ms"
		}
		if _, ok := msPerUnit(unit); !ok {
			return "", fmt.Errorf("%s takes a duration (%s), not unit %q", name, durationUnits, unit)
		}
	case kindGoodput, kindFidelity:
		if unit != "" && unit != "%" {
			return "", fmt.Errorf("%s takes a percentage (e.g. 95%%), not unit %q", name, unit)
		}
		unit = "%"
	case kindErrors:
		if unit != "" && unit != "%" {
			return "", fmt.Errorf("errors takes a percentage (1%%) or a count (3), not unit %q", unit)
		}
	case kindThroughput:
		if unit != "" {
			return "", fmt.Errorf("%s takes a plain number (per second), not unit %q", name, unit)
		}
	case kindDelta:
		if _, ok := msPerUnit(unit); !ok && unit != "%" {
			return "", fmt.Errorf("%s takes a signed percentage or duration (e.g. +10%% or +50ms), not %s", name, unitOrBare(unit))
		}
	}
	return unit, checkRange(name, unit, v)
}

// checkRange refuses a percentage of the whole over 100 (a delta may exceed it) and a
// duration too large to hold in milliseconds.
func checkRange(name, unit string, v float64) error {
	if unit == "%" && v > 100 && !strings.HasPrefix(name, "delta.") {
		return fmt.Errorf("%s limit %v%%: want at most 100%%", name, v)
	}
	if f, ok := msPerUnit(unit); ok && !stats.IsFinite(v*f) {
		return fmt.Errorf("%s limit %v%s: out of range", name, v, unit)
	}
	return nil
}

func unitOrBare(unit string) string {
	if unit == "" {
		return "a bare number"
	}
	return "unit " + strconv.Quote(unit)
}

// msPerUnit is how many milliseconds one unit is.
func msPerUnit(unit string) (float64, bool) {
	switch unit {
	case "ns":
		return 1e-6, true
	case "us":
		return 1e-3, true
	case "ms":
		return 1, true
	case "s":
		return 1e3, true
	case "m":
		return 60e3, true
	case "h":
		return 3600e3, true
	}
	return 0, false
}

// inUnit converts a value of the term's base (ms for durations) to unit, and back with
// toBase. Sub-millisecond units divide by exact powers of ten, so 500us is exactly 0.5 ms.
func inUnit(v float64, unit string) float64 {
	switch unit {
	case "ns":
		return v * 1e6
	case "us":
		return v * 1e3
	case "s":
		return v / 1e3
	case "m":
		return v / 60e3
	case "h":
		return v / 3600e3
	}
	return v
}

func toBase(v float64, unit string) float64 {
	switch unit {
	case "ns":
		return v / 1e6
	case "us":
		return v / 1e3
	case "s":
		return v * 1e3
	case "m":
		return v * 60e3
	case "h":
		return v * 3600e3
	}
	return v
}

// formatLimit prints a limit's number so that parseLimit reads back the same float64.
func formatLimit(v float64, signed bool) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if signed && !math.Signbit(v) {
		s = "+" + s
	}
	return s
}

// holds reports whether v op limit. Figures in summary.json are rounded to microseconds and
// limits pass through unit conversions and ratios ((110-100)/100 is not exactly 0.1), so a
// value equal to its limit up to a relative 1e-9 counts as equal: it meets <=, >= and == and
// fails < and >.
func holds(v float64, op string, limit float64) bool {
	var eps float64
	if stats.IsFinite(v) && stats.IsFinite(limit) {
		eps = 1e-9 * math.Max(math.Abs(v), math.Abs(limit))
	}
	switch op {
	case "<=":
		return v <= limit+eps
	case "<":
		return v < limit-eps
	case ">=":
		return v >= limit-eps
	case ">":
		return v > limit+eps
	case "==":
		return math.Abs(v-limit) <= eps
	}
	return false
}
