package sim

import "unicode/utf8"

// output is what every choice of one answer says, token by token: the filler, or a Content
// cut into tokens.
//
// A Content's tokens are counted with the Counter that counts prompts (Config.Counter: the
// served model's tokenizer when given, else ApproxCounter's 4 bytes a token), at least one and
// at most one per character, and its text is cut into that many pieces of near-equal characters,
// each a token on the wire. A choice is at most max_tokens of them (cut short there, as a
// real engine cuts a long answer, finish_reason "length"), then, when min_tokens or
// ignore_eos asks for more, padded with " " tokens (JSON allows whitespace after a value, so
// the answer still parses). usage.completion_tokens counts exactly these tokens, in every
// choice, and so does the cost model: a constrained request decodes what it answers.
type output struct {
	content *Content
	// cuts are the token boundaries in content.Text: token i is Text[cuts[i]:cuts[i+1]].
	cuts []int
	// tokens is each choice's length: the filler's max_tokens, or the content's tokens and
	// padding.
	tokens int
	// finish is the finish_reason of each choice.
	finish string
	// thinking is how many of each choice's first tokens are thinking (Request.Thinking);
	// the answer is the tokens after them (thinking.go).
	thinking int
}

// padToken is the text of a token that pads a Content answer to its forced length.
const padToken = " "

// fillerOutput is the filler answer of max_tokens tokens.
func fillerOutput(maxTokens int) output { return output{tokens: maxTokens, finish: "length"} }

// newOutput is what r is answered with, its Content counted with counter.
func newOutput(counter Counter, r *Request) output {
	c := r.Content
	if c == nil {
		o := fillerOutput(r.MaxTokens)
		if r.Chat {
			o.thinking = min(r.Thinking, o.tokens)
		}
		return o
	}
	o := output{content: c, cuts: cutTokens(c.Text, counter.Count(c.Text))}
	o.tokens = min(len(o.cuts)-1, r.MaxTokens)
	if r.IgnoreEOS {
		o.tokens = r.MaxTokens
	}
	o.tokens = max(o.tokens, r.MinTokens)
	switch {
	case o.tokens == r.MaxTokens:
		o.finish = "length" // even a content that fits exactly would need one more for its end
	case c.Tool != "":
		o.finish = "tool_calls"
	default:
		o.finish = "stop"
	}
	return o
}

// cutTokens cuts text into n pieces of near-equal characters (n clamped to [1, characters], so
// that no piece is empty) and returns the n+1 byte boundaries.
func cutTokens(text string, n int) []int {
	runes := utf8.RuneCountInString(text)
	n = max(1, min(n, runes))
	cuts := make([]int, 0, n+1)
	j := 0
	for off := range text { // piece k starts at the first character j with j*n >= k*runes
		if len(cuts) < n && j*n >= len(cuts)*runes {
			cuts = append(cuts, off)
		}
		j++
	}
	if len(cuts) == 0 {
		cuts = append(cuts, 0) // an empty text: one empty piece, which no Content has
	}
	return append(cuts, len(text))
}

// appendTokens appends tokens [from, from+n) of a choice as JSON string content (escaped,
// without quotes).
func (o *output) appendTokens(b []byte, from, n int) []byte {
	if o.content == nil {
		return appendFiller(b, n)
	}
	pieces := len(o.cuts) - 1
	for i := from; i < from+n; i++ {
		if i >= pieces {
			b = append(b, padToken...)
			continue
		}
		b = appendEscaped(b, o.content.Text[o.cuts[i]:o.cuts[i+1]])
	}
	return b
}
