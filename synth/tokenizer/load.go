package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"
)

// fileJSON is the top level of tokenizer.json.
type fileJSON struct {
	AddedTokens   []addedToken    `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
	Model         *bpeJSON        `json:"model"`
	// truncation and padding are ignored on purpose: replay counts whole prompts.
}

// Load reads a Hugging Face tokenizer: path is a tokenizer.json file or a folder holding one.
func Load(path string) (Tokenizer, error) {
	file, err := tokenizerFile(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return t, nil
}

// tokenizerFile resolves a file or folder argument to the tokenizer.json path.
func tokenizerFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("tokenizer: %w", err)
	}
	if st.IsDir() {
		return filepath.Join(path, "tokenizer.json"), nil
	}
	return path, nil
}

// Parse builds a tokenizer from the bytes of a tokenizer.json. Errors name the component, as
// in `pre_tokenizer.pretokenizers[1]: unsupported type "Foo"`.
func Parse(data []byte) (*HF, error) {
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	if f.Model == nil {
		return nil, errors.New("model: missing")
	}
	mj := *f.Model
	if mj.Type != "BPE" && !(mj.Type == "" && mj.Merges != nil) {
		if mj.Type == "" {
			return nil, errors.New("model: missing \"type\"")
		}
		return nil, fmt.Errorf("model: unsupported type %q (only BPE models are supported)", mj.Type)
	}
	model, err := newBPE(&mj)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	t := &HF{model: model, addedByID: map[int32]*addedToken{}, addedByContent: map[string]int32{}}
	if t.normalizer, err = parseNormalizer(f.Normalizer, "normalizer"); err != nil {
		return nil, err
	}
	if t.pre, err = parsePreTokenizer(f.PreTokenizer, "pre_tokenizer"); err != nil {
		return nil, err
	}
	if t.raw, err = byteLevelLast(t.pre); err != nil {
		return nil, err
	}
	if t.raw {
		model.enableByteLevel()
	}
	t.pre = simplifyPre(t.pre)
	if t.post, err = parsePostProcessor(f.PostProcessor, "post_processor"); err != nil {
		return nil, err
	}
	if t.dec, err = parseDecoder(f.Decoder, "decoder"); err != nil {
		return nil, err
	}
	if err := t.addTokens(f.AddedTokens); err != nil {
		return nil, err
	}
	t.vocabSize = max(t.vocabSize, len(model.pieces))
	t.lineChunks = lineChunkable(f.Normalizer, t.pre, t.normMatch)
	t.pool = sync.Pool{New: func() any { return new(scratch) }}
	return t, nil
}

// byteLevelLast reports whether the pre-tokenizer ends with ByteLevel, which makes the
// pipeline work on raw bytes; ByteLevel anywhere else is refused.
func byteLevelLast(p preTokenizer) (bool, error) {
	switch p := p.(type) {
	case *byteLevelPre:
		return true, nil
	case preSequence:
		for i, q := range p {
			if _, ok := q.(*byteLevelPre); ok && i != len(p)-1 {
				return false, fmt.Errorf("pre_tokenizer.pretokenizers[%d]: ByteLevel is only supported as the last pre-tokenizer", i)
			}
			if _, ok := q.(preSequence); ok {
				if inner, _ := byteLevelLast(q); inner {
					return false, fmt.Errorf("pre_tokenizer.pretokenizers[%d]: nested ByteLevel is not supported", i)
				}
			}
		}
		if len(p) > 0 {
			_, ok := p[len(p)-1].(*byteLevelPre)
			return ok, nil
		}
	}
	return false, nil
}

// addTokens registers the added tokens as the crate's AddedVocabulary does: a token already in
// the model's vocabulary keeps that id; non-normalized tokens are matched on the raw text,
// normalized ones on the normalized text (so their content is normalized first).
func (t *HF) addTokens(tokens []addedToken) error {
	var rawToks, normToks []*addedToken
	var rawContent, normContent []string
	// Special tokens come first in the crate's matching tries, then the others.
	order := make([]*addedToken, 0, len(tokens))
	for i := range tokens {
		if tokens[i].Special {
			order = append(order, &tokens[i])
		}
	}
	for i := range tokens {
		if !tokens[i].Special {
			order = append(order, &tokens[i])
		}
	}
	for i, tok := range order {
		if tok.Content == "" {
			continue
		}
		if !utf8.ValidString(tok.Content) {
			return fmt.Errorf("added_tokens[%d]: content is not valid UTF-8", i)
		}
		if id, ok := t.model.vocab[tok.Content]; ok {
			tok.ID = id
		}
		if tok.ID < 0 {
			return fmt.Errorf("added_tokens[%d]: negative id %d", i, tok.ID)
		}
		if _, dup := t.addedByContent[tok.Content]; dup {
			continue
		}
		t.addedByID[tok.ID] = tok
		t.addedByContent[tok.Content] = tok.ID
		if int(tok.ID) >= t.vocabSize {
			t.vocabSize = int(tok.ID) + 1
		}
		if tok.Normalized {
			c := tok.Content
			if t.normalizer != nil {
				c = t.normalizer.normalize(c)
			}
			normToks, normContent = append(normToks, tok), append(normContent, c)
			// The crate keeps the normalized content as the token's string: decode and
			// Token(id) give "▁hello▁world" for a normalized "hello world".
			tok.Content = c
			if _, dup := t.addedByContent[c]; !dup {
				t.addedByContent[c] = tok.ID
			}
		} else {
			rawToks, rawContent = append(rawToks, tok), append(rawContent, tok.Content)
		}
	}
	t.rawMatch = newAddedMatcher(rawToks, rawContent)
	t.normMatch = newAddedMatcher(normToks, normContent)
	return nil
}
