package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeFlag is a memory size flag: bytes, or a number with KiB, MiB, GiB or TiB (KB, MB, GB, TB
// are read as the same powers of two: memory is counted in them). "auto" (or 0) means the
// default and "all" (stored as -1) means no limit.
type sizeFlag struct{ v *int64 }

var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}, {"KB", 10}, {"MB", 20}, {"GB", 30}, {"TB", 40}, {"B", 0}}

func (f sizeFlag) Set(s string) error {
	v, err := parseSize(s)
	if err != nil {
		return err
	}
	*f.v = v
	return nil
}

func (f sizeFlag) String() string {
	switch v := *f.v; {
	case v < 0:
		return "all"
	case v == 0:
		return wordAuto
	case v%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", v>>30)
	case v%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", v>>20)
	default:
		return strconv.FormatInt(v, 10)
	}
}

func (sizeFlag) Type() string { return "size" }

// parseSize reads "all", "auto", a byte count or a number with a unit, such as 512MiB or 1.5GiB.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "all") {
		return -1, nil
	}
	if strings.EqualFold(t, wordAuto) {
		return 0, nil
	}
	var shift uint
	for _, u := range sizeUnits {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, shift = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.shift
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || !(n >= 0) || math.IsInf(n, 0) || n*float64(int64(1)<<shift) >= math.MaxInt64 {
		return 0, fmt.Errorf("%q: want a size such as 512MiB or 2GiB, auto or all", s)
	}
	return int64(n * float64(int64(1)<<shift)), nil
}
