package requestlog

import "strings"

// fillerWords are the words synthetic text is made of: common English words that are one
// token each, with or without a leading space, in the byte-level BPE vocabularies (Llama 3,
// Qwen, DeepSeek) and the SentencePiece ones (Mistral, Llama 2, Gemma), so n words are
// almost always n tokens; synthText checks and adjusts.
var fillerWords = strings.Fields(`the of and to in is for on with as at by from or an be this that it are
was not but all can has have will one more when out up so if about into than its only new
some time two may first then now like over such most made after also any many`)

// counter counts tokens (tokenizer.Tokenizer does).
type counter interface{ Count(text string) int }

// synthText returns filler text of exactly n tokens as tok counts it, the same for the same n
// and salt (so equal definitions stay equal across requests, and their prefix blocks shared);
// salt changes the words, to keep values of one enum apart. It gives up after a few tries
// with a text of n words, which a tokenizer may count otherwise (none of ours do).
func synthText(tok counter, n, salt int) string {
	if n <= 0 {
		return ""
	}
	for try := range 4 {
		k := n
		for range 6 {
			s := fillerRun(k, salt+try*7)
			c := tok.Count(s)
			if c == n {
				return s
			}
			k = max(1, k+n-c)
		}
	}
	return fillerRun(n, salt)
}

// fillerRun is k filler words from position salt on, separated by spaces.
func fillerRun(k, salt int) string {
	var b strings.Builder
	for i := range k {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(fillerWords[(salt+i)%len(fillerWords)])
	}
	return b.String()
}
