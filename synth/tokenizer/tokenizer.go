package tokenizer

// Tokenizer encodes and decodes text exactly as Hugging Face's Rust tokenizers crate does for
// the same tokenizer.json.
type Tokenizer interface {
	// Encode returns the token ids of text. With addSpecial the post-processor's special tokens
	// (BOS and the like) are added, as the crate's encode(text, add_special_tokens=true) does.
	Encode(text string, addSpecial bool) []int
	// Count returns len(Encode(text, false)), possibly faster.
	Count(text string) int
	// Decode turns ids back into text, skipping special tokens when skipSpecial is set.
	Decode(ids []int, skipSpecial bool) string
	// VocabSize is one more than the largest id Encode can return (added tokens included).
	VocabSize() int
	// Token returns the vocabulary entry (raw piece) for id, and false for an unknown id.
	Token(id int) (string, bool)
	// ID returns the id of a vocabulary entry or added token.
	ID(token string) (int, bool)
	// IsSpecial reports whether id is an added token marked special.
	IsSpecial(id int) bool
}
