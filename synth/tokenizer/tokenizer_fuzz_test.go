package tokenizer

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzNames cover every pre-tokenizer family: o200k, Llama-3, DeepSeek's three splits, Qwen's
// NFC, and SentencePiece-style byte fallback (the committed Mistral sample).
var fuzzNames = []string{"llama3", "gpt4o", "deepseek_v3", "qwen3"}

// FuzzEncode feeds arbitrary bytes to encode: it must not panic, ids must lie within the
// vocabulary, Count and a Memo's count must agree (the memo's on the text repeated too, so
// that it spans memo strides and finds them again), and byte-level tokenizers must decode valid
// UTF-8 back exactly.
func FuzzEncode(f *testing.F) {
	f.Add([]byte("Hello, world! It's 2024."))
	f.Add([]byte("x'ſtring \U0001E5D0's <|begin_of_text|><s>"))
	var tks []*HF
	var lossless []bool
	for _, name := range fuzzNames {
		tks = append(tks, loadReal(f, name))
		lossless = append(lossless, name != "qwen3")
	}
	sample, err := Load(filepath.Join("..", "..", "samples", "tokenizer", "mistral", "tokenizer.json"))
	if err != nil {
		f.Fatal(err)
	}
	tks = append(tks, sample.(*HF))
	lossless = append(lossless, false)
	memos := make([]*Memo, len(tks))
	for i, tk := range tks {
		memos[i] = tk.WithCountMemo(1 << 12)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text := string(data)
		for i, tk := range tks {
			for _, s := range []string{text, strings.Repeat(text+" ", 70), strings.Repeat(text+" ", 80)} {
				if n, want := memos[i].Count(s, true), len(tk.Encode(s, true)); n != want {
					t.Fatalf("tokenizer %d: Memo.Count %d != len(Encode) %d for %q", i, n, want, s)
				}
			}
			for _, special := range []bool{false, true} {
				ids := tk.Encode(text, special)
				for _, id := range ids {
					if id < 0 || id >= tk.VocabSize() {
						t.Fatalf("tokenizer %d: id %d outside [0, %d) for %q", i, id, tk.VocabSize(), text)
					}
				}
				if !special {
					if n := tk.Count(text); n != len(ids) {
						t.Fatalf("tokenizer %d: Count %d != len(Encode) %d for %q", i, n, len(ids), text)
					}
					if lossless[i] && utf8.ValidString(text) {
						if got := tk.Decode(ids, false); got != text {
							t.Fatalf("tokenizer %d: decode(encode(%q)) = %q", i, text, got)
						}
					}
				}
			}
			// Arbitrary ids must not panic either.
			ids := make([]int, 0, len(data)/2)
			for k := 0; k+1 < len(data); k += 2 {
				ids = append(ids, int(data[k])<<8|int(data[k+1])-100)
			}
			tk.Decode(ids, false)
			tk.Decode(ids, true)
		}
	})
}

// FuzzParse feeds arbitrary tokenizer.json bytes to Parse: errors are fine, panics are not,
// and whatever parses must encode without panicking.
func FuzzParse(f *testing.F) {
	f.Add([]byte(tinyJSONFilled()))
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0, "<0x41>": 1}, "merges": [], "byte_fallback": true, "unk_token": "a", "fuse_unk": true}, "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}, "decoder": {"type": "Metaspace"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := Parse(data)
		if err != nil {
			return
		}
		ids := tk.Encode("Hello wörld 123 <s> A\n\n", true)
		tk.Decode(ids, false)
	})
}

func tinyJSONFilled() string {
	s := tinyJSON
	for k, v := range tinyParts {
		s = replaceOnce(s, k, v)
	}
	return s
}

func replaceOnce(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	return s
}
