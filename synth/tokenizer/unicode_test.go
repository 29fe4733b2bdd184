package tokenizer

import (
	"slices"
	"testing"
	"unicode"
)

// TestOnigurumaTraps checks inputs where a naive port disagrees with the crate's Oniguruma.
// The want ids came from tokref (the Rust reference, npm tokenizers 0.23.2), e.g.
// `node .cache/tokref/encode.js .cache/tokenizers/llama3/tokenizer.json`.
func TestOnigurumaTraps(t *testing.T) {
	cases := []struct {
		name, text string
		want       []int
		why        string
	}{
		// (?i:'s) matches "'ſ" (U+017F folds to s): "'ſ" splits off before "tring".
		{"llama3", "x'ſtring", []int{87, 6, 129, 123, 563}, "(?i:'s) and U+017F"},
		{"llama3", "it'ſ ok", []int{275, 6, 129, 123, 5509}, "(?i:'s) and U+017F"},
		{"qwen3", "x'ſtring", []int{87, 6, 144815, 561}, "(?i:'s) and U+017F"},
		{"gpt4o", "x'ſtring", []int{87, 6, 70067, 600}, "(?i:'s)? and U+017F"},
		{"gpt4o", "it'ſ ok", []int{278, 6, 70067, 4763}, "(?i:'s)? and U+017F"},
		{"gpt4o", "a'ſ名", []int{64, 6, 70067, 6224}, "(?i:'s)? and U+017F"},
		{"llama3", "IT'S", []int{964, 13575}, "(?i:'s) and S"},
		{"llama3", "'Sam", []int{13575, 309}, "(?i:'s) and S"},
		{"qwen3", "'Sam", []int{13272, 309}, "(?i:'s) and S"},
		// A letter from Unicode 15.1 (CJK Extension I): "X's" keeps "'s" apart only if X is \p{L}.
		{"llama3", "\U0002EBF0's", []int{172, 106, 107, 108, 596}, "U+2EBF0 is \\p{L} (Unicode 15.1)"},
		{"gpt4o", "\U0002EBF0's", []int{172, 106, 107, 108, 885}, "U+2EBF0 is \\p{Lo} (Unicode 15.1)"},
		// Unicode 16.0: Ol Onal letter and digit, outlined digit (Symbols for Legacy Computing Supplement).
		{"llama3", "\U0001E5D0's", []int{172, 252, 245, 238, 596}, "U+1E5D0 is \\p{L} (Unicode 16.0)"},
		{"gpt4o", "\U0001E5D0's", []int{172, 252, 245, 238, 885}, "U+1E5D0 is \\p{Lo} (Unicode 16.0)"},
		{"llama3", "\U0001E5F1123", []int{172, 252, 245, 109, 717, 18}, "U+1E5F1 is \\p{N} (Unicode 16.0)"},
		{"llama3", "\U0001CCF0123", []int{172, 250, 111, 108, 717, 18}, "U+1CCF0 is \\p{N} (Unicode 16.0)"},
		{"qwen3", "\U0001E5F1123", []int{172, 252, 245, 109, 16, 17, 18}, "U+1E5F1 is \\p{N} (Unicode 16.0)"},
		// U+30A0 (゠) is \p{P} though DeepSeek's kana range also holds it.
		{"deepseek_v3", "\u3098\u30a0\u30a6\u30ab", []int{665, 249, 665, 257, 19774, 15961}, "U+30A0 is \\p{P}"},
		// Oniguruma's \s includes U+0085, U+00A0 and U+2028.
		{"llama3", "a\u0085\u0085b", []int{64, 116360, 116360, 65}, "U+0085 is \\s"},
		{"llama3", "\u00a0\u00a0x", []int{4194, 4194, 87}, "U+00A0 is \\s"},
		{"gpt4o", "\u2028\u2028x", []int{51008, 51008, 87}, "U+2028 is \\s"},
	}
	for _, c := range cases {
		tk := loadReal(t, c.name)
		if got := tk.Encode(c.text, false); !slices.Equal(got, c.want) {
			t.Errorf("%s %q (%s): got %v, want %v", c.name, c.text, c.why, got, c.want)
		}
	}
	// Where BPE happens to hide a pre-tokenizer difference, compare the pieces themselves, as
	// tokref's preTokenizeString gave them (in raw bytes rather than byte-level runes).
	splits := []struct {
		name, text string
		want       []string
	}{
		{"llama3", "x'ſtring", []string{"x", "'ſ", "tring"}},
		{"llama3", "'ſam", []string{"'ſ", "am"}},
		{"gpt4o", "x'ſtring", []string{"x'ſ", "tring"}},
		{"gpt4o", "a'ſtring名", []string{"a'ſ", "tring名"}},
	}
	for _, c := range splits {
		tk := loadReal(t, c.name)
		var ms [][2]int
		var got []string
		for _, w := range tk.pre.split(nil, word{s: c.text, first: true}, &ms) {
			got = append(got, w.s)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s pre-tokenizes %q as %q, want %q", c.name, c.text, got, c.want)
		}
	}
	// These are traps because Go's own tables (Unicode 15.0) do not know the new code points.
	for _, r := range []rune{0x2EBF0, 0x1E5D0} {
		if unicode.IsLetter(r) {
			t.Logf("Go's unicode tables now know %U; the trap cases above still hold", r)
		}
	}
}

// TestOldNormalization: the crate's NFC tables predate some combining marks (U+08CE, U+08D1
// here), which it leaves in place where Go's NFC reorders them. Reference ids from tokref.
func TestOldNormalization(t *testing.T) {
	tk := loadReal(t, "qwen3")
	text := "\u08c5\u08ce\u08d1\u08d7\u08e9\u08f1\u08f4 x"
	want := []int{156, 96, 227, 156, 96, 236, 156, 96, 239, 156, 96, 109, 156, 96, 102, 156, 96, 245, 156, 96, 112, 856}
	if got := tk.Encode(text, false); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
