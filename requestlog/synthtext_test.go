package requestlog

import (
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// TestSynthText: filler text has exactly the token count asked for, under every cached
// tokenizer and the sample one, for every length up to 300 and several salts; the same length
// and salt give the same text, another salt another one.
func TestSynthText(t *testing.T) {
	names := []string{"qwen3", "llama3", "llama3_1", "deepseek_v3", "gptoss", "gemma3", "llama2"}
	for _, name := range append(names, "sample") {
		t.Run(name, func(t *testing.T) {
			path := testenv.SampleTokenizer()
			if name != "sample" {
				path = testenv.Tokenizer(t, name)
			}
			tok, err := tokenizer.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			for n := range 301 {
				for salt := range 4 {
					s := synthText(tok, n, salt)
					if got := tok.Count(s); got != n {
						t.Fatalf("synthText(%d, %d) = %q: %d tokens", n, salt, s, got)
					}
				}
			}
			a, b, c := synthText(tok, 5, 1), synthText(tok, 5, 1), synthText(tok, 5, 2)
			if a != b || a == c {
				t.Error("filler text is not a function of length and salt")
			}
		})
	}
}
