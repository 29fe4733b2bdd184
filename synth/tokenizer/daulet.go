//go:build daulet

package tokenizer

import (
	"fmt"
	"os"

	dt "github.com/daulet/tokenizers"
)

// Daulet implements Tokenizer over github.com/daulet/tokenizers, the Rust crate through cgo. It
// needs libtokenizers.a at link time, hence the build tag: go build -tags daulet. Vocabulary
// queries (Token, ID, IsSpecial) come from this package's own parse of the same file.
type Daulet struct {
	tk   *dt.Tokenizer
	meta *HF
}

var _ Tokenizer = (*Daulet)(nil)

// LoadDaulet loads a tokenizer.json (or a folder holding one) into the Rust tokenizer.
func LoadDaulet(path string) (*Daulet, error) {
	file, err := tokenizerFile(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	tk, err := dt.FromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: daulet/tokenizers: %w", file, err)
	}
	meta, err := Parse(data)
	if err != nil {
		tk.Close()
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &Daulet{tk: tk, meta: meta}, nil
}

// Close frees the Rust tokenizer.
func (d *Daulet) Close() error { return d.tk.Close() }

// Encode implements Tokenizer.
func (d *Daulet) Encode(text string, addSpecial bool) []int {
	ids, _ := d.tk.Encode(text, addSpecial)
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// Count implements Tokenizer.
func (d *Daulet) Count(text string) int {
	ids, _ := d.tk.Encode(text, false)
	return len(ids)
}

// Decode implements Tokenizer.
func (d *Daulet) Decode(ids []int, skipSpecial bool) string {
	u := make([]uint32, 0, len(ids))
	for _, id := range ids {
		if id >= 0 && id <= 1<<32-1 {
			u = append(u, uint32(id))
		}
	}
	return d.tk.Decode(u, skipSpecial)
}

// VocabSize implements Tokenizer.
func (d *Daulet) VocabSize() int { return d.meta.VocabSize() }

// Token implements Tokenizer.
func (d *Daulet) Token(id int) (string, bool) { return d.meta.Token(id) }

// ID implements Tokenizer.
func (d *Daulet) ID(token string) (int, bool) { return d.meta.ID(token) }

// IsSpecial implements Tokenizer.
func (d *Daulet) IsSpecial(id int) bool { return d.meta.IsSpecial(id) }
