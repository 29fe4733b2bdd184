package synth

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/llm-replay/replay/synth/tokenizer"
)

// ApplyTokenizerConfig fills cfg's ChatTemplate, BOSToken and EOSToken from the
// tokenizer_config.json beside tokenizerPath (a tokenizer.json file or its folder). A missing
// file or template leaves them empty, and DefaultChatTemplate applies.
func ApplyTokenizerConfig(tokenizerPath string, cfg *Config) error {
	c, err := tokenizer.LoadConfig(tokenizerPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	cfg.ChatTemplate, cfg.BOSToken, cfg.EOSToken = c.ChatTemplate, c.BOSToken, c.EOSToken
	return nil
}
