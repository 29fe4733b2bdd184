package synth

import "errors"

// CountChat returns the prompt tokens a server using this builder's chat template and tokenizer
// sees for msgs: the rendered template (with the generation prompt) encoded with its special
// tokens recognized. The built-in simulator uses it to count chat prompts the way a real server
// does. It is safe for concurrent use: rendering and encoding share no state with Build.
func (b *Builder) CountChat(msgs []Message) (int, error) {
	if b.chat == nil {
		return 0, errors.New("synth: CountChat needs a builder for the chat API")
	}
	rendered, err := b.chat.render(msgs)
	if err != nil {
		return 0, err
	}
	return len(b.tok.Encode(rendered, false)), nil
}
