package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// TestKnownMatchersAgreeWithRegexp2 checks each hand-written matcher against regexp2 running the
// pattern text itself (with the Unicode classes widened to the reference's tables), on the
// golden and random corpora. regexp2 does not fold "ſ" in (?i:'s), so texts with "'ſ" are left
// to the golden tests.
func TestKnownMatchersAgreeWithRegexp2(t *testing.T) {
	texts := append(readCorpus(t), readCorpusFile(t, "testdata/random/corpus.jsonl")...)
	texts = append(texts, "", " ", "a", "'s", "'S", "''", "  \n", "\r\n\r\n  x", "x  ", "1234567", "A's B'LL")
	for _, pat := range []string{patLlama3, patQwen, patO200k, patGPT2, patDigits3, patDSCJK, patDeepseek} {
		fast, ok := knownMatcher(pat)
		if !ok {
			t.Fatalf("pattern %q has no hand-written matcher", pat)
		}
		slow, err := compileRegexp2(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			if strings.Contains(text, "'ſ") {
				continue
			}
			got, want := fast.appendMatches(nil, text), slow.appendMatches(nil, text)
			if !slices.Equal(got, want) {
				t.Fatalf("pattern %.40q on %q:\n hand-written %v\n      regexp2 %v", pat, text, got, want)
			}
		}
	}
}

// TestRealTokenizersUseKnownMatchers makes sure the eight real tokenizers hit the hand-written
// matchers (a changed pattern string would silently fall back to the slower regexp2).
func TestRealTokenizersUseKnownMatchers(t *testing.T) {
	for _, name := range goldenNames {
		tk := loadReal(t, name)
		var walk func(p preTokenizer)
		walk = func(p preTokenizer) {
			switch p := p.(type) {
			case preSequence:
				for _, q := range p {
					walk(q)
				}
			case *splitPre:
				if _, slow := p.m.(regexMatcher); slow {
					t.Errorf("%s: a Split pattern runs on regexp2", name)
				}
			}
		}
		walk(tk.pre)
	}
}
