package tokenizer

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// oldNorm runs a Unicode normalization form the way the crate does with its older tables. The
// code points of normUnknown are plain starters there (no reordering, no decomposition, no
// composition), so the text is normalized in pieces between them; and where Go composes a
// piece into one of them, the composition is undone.
func oldNorm(f norm.Form) func(string) string {
	return func(s string) string {
		if !mayHoldUnknown(s) {
			return f.String(s)
		}
		var b strings.Builder
		prev := 0
		for i, r := range s {
			if isNormUnknown(r) {
				writeNormalized(&b, f, s[prev:i])
				b.WriteRune(r)
				prev = i + utf8.RuneLen(r)
			}
		}
		writeNormalized(&b, f, s[prev:])
		return b.String()
	}
}

func writeNormalized(b *strings.Builder, f norm.Form, s string) {
	out := f.String(s)
	if !mayHoldUnknown(out) {
		b.WriteString(out)
		return
	}
	for _, r := range out {
		if isNormUnknown(r) {
			b.WriteString(norm.NFD.String(string(r)))
		} else {
			b.WriteRune(r)
		}
	}
}

// normUnknownBits is normUnknown as a bitmap over the first two planes (where all of them are).
var normUnknownBits = func() (bits [0x20000 / 64]uint64) {
	for _, r := range normUnknown {
		if r < 0x20000 {
			bits[r>>6] |= 1 << (r & 63)
		}
	}
	return bits
}()

func isNormUnknown(r rune) bool {
	if r >= 0 && r < 0x20000 {
		return normUnknownBits[r>>6]&(1<<(r&63)) != 0
	}
	_, found := slices.BinarySearch(normUnknown, r)
	return found
}

// normUnknownLead is the first UTF-8 byte of the smallest code point of normUnknown: a string
// with no byte at or above it holds none of them.
var normUnknownLead = func() byte {
	var buf [4]byte
	utf8.EncodeRune(buf[:], normUnknown[0])
	return buf[0]
}()

func mayHoldUnknown(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= normUnknownLead {
			return true
		}
	}
	return false
}
