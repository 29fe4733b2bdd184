package synth

// ChatRenderer renders chat messages into the prompt text a server builds with the model's chat
// template (with the generation prompt), the same rendering the chat API's prompts and
// Builder.CountChat use. Readers of request logs use it to count the prompt tokens a logged
// chat request really had. It is safe for concurrent use.
type ChatRenderer struct {
	tpl *chatTemplate
}

// NewChatRenderer parses cfg.ChatTemplate with cfg.BOSToken and cfg.EOSToken (fill them with
// ApplyTokenizerConfig); an empty template means DefaultChatTemplate. Other fields of cfg are
// ignored.
func NewChatRenderer(cfg Config) (*ChatRenderer, error) {
	src := cfg.ChatTemplate
	if src == "" {
		src = DefaultChatTemplate
	}
	tpl, err := newChatTemplate(src, cfg.BOSToken, cfg.EOSToken)
	if err != nil {
		return nil, err
	}
	return &ChatRenderer{tpl: tpl}, nil
}

// Render returns the prompt text for msgs. Encode it with special tokens recognized and none
// added (tokenizer Encode(text, false)): the template already holds the BOS text.
func (r *ChatRenderer) Render(msgs []Message) (string, error) {
	return r.tpl.render(msgs)
}
