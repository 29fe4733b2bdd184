package chat

import (
	"encoding/json"
	"fmt"
)

// TemplateError is a chat template's own refusal of a conversation: what its raise_exception
// said, and the message that made it say so, without the template engine's trace of the
// expressions it was in (which names lines of the template, not of the input).
type TemplateError struct {
	// Said is the text the template passed to raise_exception.
	Said string
	// Index is the message the template refused, 0-based: the last of the shortest opening of
	// the conversation the template refuses with the same words (the first message it cannot
	// follow); -1 when none was found. Role is its role; Count the conversation's messages.
	Index, Count int
	Role         string
}

func (e *TemplateError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("the chat template raised an exception on this conversation of %d messages: %q", e.Count, e.Said)
	}
	return fmt.Sprintf("the chat template raised an exception at message %d of %d (role %s): %q", e.Index, e.Count, e.Role, e.Said)
}

// maxRefusalScan bounds the openings refusal renders to find the message refused: a longer
// conversation's refusal is reported without its index rather than rendered that many times.
const maxRefusalScan = 512

// refusal is the TemplateError of msgs, which the template refused saying said: each opening
// msgs[:k] is rendered in turn until one is refused with the same words, so the message named
// is the one the template could not take after the ones before it (a system message where it
// allows none, a second user turn where roles must alternate).
func (c *Renderer) refusal(msgs []Message, tools json.RawMessage, said string) error {
	e := &TemplateError{Said: said, Index: -1, Count: len(msgs)}
	if len(msgs) > maxRefusalScan {
		return e
	}
	for k := 1; k <= len(msgs); k++ {
		if _, raised, err := c.render(msgs[:k], tools); err != nil && raised == said {
			e.Index, e.Role = k-1, msgs[k-1].Role
			return e
		}
	}
	return e
}
