package synth

import (
	"errors"

	"github.com/llm-replay/replay/chat"
)

// CountChat returns the prompt tokens a server using this builder's chat template and tokenizer
// sees for msgs: the rendered template (with the generation prompt) encoded with its special
// tokens recognized. The built-in simulator uses it to count chat prompts the way a real server
// does. It is safe for concurrent use: rendering and encoding share no state with Build.
func (b *Builder) CountChat(msgs []chat.Message) (int, error) {
	if b.tpl == nil {
		return 0, errors.New("synth: CountChat needs a builder for the chat API")
	}
	rendered, err := b.tpl.Render(msgs)
	if err != nil {
		return 0, err
	}
	return len(b.tok.Encode(rendered, false)), nil
}
