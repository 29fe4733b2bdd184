package runner

import (
	"errors"
	"fmt"

	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// imageRule sets the rule the prompts' images are counted by: --image-tokens N when n > 0,
// else the target model's processor's, from its folder. A folder without one is kept as the
// reason, for the first record with an image to name (a trace without images needs none).
func imageRule(s *synth.Config, tokPath string, tok tokenizer.Tokenizer, n int) error {
	rule, err := requestlog.ImageRule(tokPath, tok, n)
	switch {
	case err == nil:
		s.Images = rule
	case errors.Is(err, media.ErrNoRule):
		s.ImagesErr = err
	default:
		return fmt.Errorf("--tokenizer: the model's image processor: %w", err)
	}
	return nil
}
