package tokenizer

import (
	"strings"
	"testing"
)

// TestFusedNormalizersAgree: the fused Prepend+Replace pair and the one-byte replaceAll give
// what the two normalizers apart (strings.ReplaceAll) give, on empty text, text without and
// with the byte at either end, runs of it, and multi-byte text; a prepend holding the byte is
// not fused.
func TestFusedNormalizersAgree(t *testing.T) {
	for _, s := range []string{"", "a", " ", "  ", "hello world", " lead", "trail ", "a  b   c", "héllo wörld ☃ x", "no-spaces"} {
		q := normSequence{prependNorm("\u2581"), replaceNorm{old: " ", content: "\u2581"}}
		want := q.normalize(s)
		if got := fuseSequence(q).normalize(s); got != want {
			t.Errorf("fused %q = %q, want %q", s, got, want)
		}
		if got, want := replaceAll(s, " ", "\u2581"), strings.ReplaceAll(s, " ", "\u2581"); got != want {
			t.Errorf("replaceAll %q = %q, want %q", s, got, want)
		}
	}
	q := fuseSequence(normSequence{prependNorm(" x"), replaceNorm{old: " ", content: "_"}}).(normSequence)
	if len(q) != 2 {
		t.Errorf("a prepend holding the replaced byte was fused: %#v", q)
	}
}
