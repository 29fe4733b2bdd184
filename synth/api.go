package synth

import (
	"fmt"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/trace"
)

// api.go decides which API each record's prompt is built for: a request log names each
// request's own (a gateway's log mixes them), a trace without options leaves it to the run.

// validAPI reports whether a names an API a prompt can be built for.
func validAPI(a API) bool {
	switch a {
	case APICompletions, APIChat, APIResponses, APIMessages, APIEmbeddings:
		return true
	}
	return false
}

// RecordAPI is the API rec's prompt is built for and sent to: its logged one, else def (the
// run's --api).
func RecordAPI(rec trace.Record, def API) API {
	if rec.Options != nil && rec.Options.API != "" {
		return API(rec.Options.API)
	}
	return def
}

// apiOf is RecordAPI under Config.API.
func (b *Builder) apiOf(rec trace.Record) API { return RecordAPI(rec, b.cfg.API) }

// chatFamily reports whether a's prompts are rendered through the chat template.
func chatFamily(a API) bool { return trace.ChatFamily(string(a)) }

// templated reports whether rec's prompt goes through the chat template.
func (b *Builder) templated(rec trace.Record) bool { return chatFamily(b.apiOf(rec)) }

// checkAPI refuses a record whose API no prompt can be built for, and parses the chat
// template the first time a record needs it. It runs sequentially (plan, RecordOverhead),
// before any verification of that record's job, which reads the template on other
// goroutines only after the job is handed over.
func (b *Builder) checkAPI(rec trace.Record, at string) error {
	a := b.apiOf(rec)
	if !validAPI(a) {
		return fmt.Errorf("%s: field \"api\": %q is not an API replay sends to (chat, completions, responses, messages, embeddings)", at, a)
	}
	if !chatFamily(a) || b.tpl != nil {
		return nil
	}
	tpl, err := chat.NewRenderer(b.cfg.Chat)
	if err != nil {
		return fmt.Errorf("%s: the %s API renders prompts with the chat template: %w", at, a, err)
	}
	b.tpl = tpl
	return nil
}
