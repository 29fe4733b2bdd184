package media

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxSide bounds either side of an image replay builds: larger than any chat API accepts,
// small enough that a stand-in image fits in memory.
const MaxSide = 16384

// ParseSize reads --image-size's WxH (e.g. 1024x768).
func ParseSize(s string) (width, height int, err error) {
	ws, hs, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if !ok {
		return 0, 0, fmt.Errorf("image size %q: want WIDTHxHEIGHT, e.g. 1024x768", s)
	}
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if err1 != nil || err2 != nil || w <= 0 || h <= 0 {
		return 0, 0, fmt.Errorf("image size %q: want two positive integers, WIDTHxHEIGHT", s)
	}
	if w > MaxSide || h > MaxSide {
		return 0, 0, fmt.Errorf("image size %q: a side over %d pixels", s, MaxSide)
	}
	return w, h, nil
}
