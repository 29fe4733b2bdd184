package chat

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/llm-replay/replay/synth/tokenizer"
)

// Template is a model's chat template and the special tokens it is rendered with.
type Template struct {
	// Source is the Jinja template (tokenizer_config.json's chat_template); "" means
	// DefaultTemplate.
	Source string
	// BOS and EOS are the bos_token and eos_token the template prints.
	BOS, EOS string
}

// LoadTemplate reads the chat template from the tokenizer_config.json beside tokenizerPath (a
// tokenizer.json file or its folder). A missing file or template gives an empty Source, for
// which DefaultTemplate applies; an unreadable file is an error.
func LoadTemplate(tokenizerPath string) (Template, error) {
	c, err := tokenizer.LoadConfig(tokenizerPath)
	if errors.Is(err, fs.ErrNotExist) {
		return Template{}, nil
	}
	if err != nil {
		return Template{}, fmt.Errorf("chat: %w", err)
	}
	return Template{Source: c.ChatTemplate, BOS: c.BOSToken, EOS: c.EOSToken}, nil
}

// Load is LoadTemplate and NewRenderer in one: the renderer of the model whose tokenizer is at
// tokenizerPath.
func Load(tokenizerPath string) (*Renderer, error) {
	t, err := LoadTemplate(tokenizerPath)
	if err != nil {
		return nil, err
	}
	return NewRenderer(t)
}
