package requestlog

import (
	"fmt"
	"strings"
)

// The thinking part of a logged answer (trace.Options.ReasoningTokens): the output tokens the
// model spent reasoning, which a replay of a thinking model must reproduce to load the engine
// as the logged request did. The count comes from the log's usage where it says it, else from
// the logged thinking text, counted with the reader's tokenizer as an answer's text is when
// usage is absent (and counted toward the output then too). The forms read:
//
//   - Chat and completions usage: completion_tokens_details.reasoning_tokens (OpenAI API
//     reference, the chat completion object,
//     https://platform.openai.com/docs/api-reference/chat/object: usage.completion_tokens_details).
//   - Responses usage: output_tokens_details.reasoning_tokens (OpenAI API reference, the
//     response object, https://platform.openai.com/docs/api-reference/responses/object: usage).
//   - A chat message's reasoning_content: vLLM's reasoning parsers
//     (vllm-project/vllm@0052bed36509c7a5a2d8e48265334e40cf2f5a0e:
//     vllm/entrypoints/openai/protocol.py, ChatMessage), SGLang's
//     (sgl-project/sglang@004c82e07d876f6e4a0ad6e15325706b0f478f1a:
//     python/sglang/srt/entrypoints/openai/protocol.py, ChatMessage), llama.cpp's
//     --reasoning-format deepseek ("puts thoughts in message.reasoning_content",
//     ggml-org/llama.cpp@00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b: tools/server/README.md).
//   - A chat message's reasoning: vLLM's later name for it
//     (vllm-project/vllm@d5dba2d7b0ab9b98096560c69db7126b54b14d79:
//     vllm/entrypoints/openai/chat_completion/protocol.py, ChatMessage).
//   - A <think>…</think> block opening a chat message's content: a server without a reasoning
//     parser leaves the thought there (llama.cpp's --reasoning-format none "leaves thoughts
//     unparsed in message.content", the README above); an unclosed block is an answer cut
//     while still thinking. Its text between the tags is counted less the white space around
//     it (an empty block, Qwen3's with enable_thinking false, is no thought: 0).
//   - A Responses reasoning output item's content parts (reasoning_text; the response object
//     above, output, "Reasoning"): an item with no content (OpenAI's, whose thought is
//     hidden: encrypted_content, a summary only) means the log does not hold the thought.
//   - Anthropic's thinking content blocks (their thinking text; "Messages",
//     https://docs.anthropic.com/en/api/messages: content): Anthropic's usage has no
//     reasoning breakout (output_tokens includes the thinking), so the blocks are counted; a
//     redacted_thinking block has no text, and the count is then left unknown. Claude 4
//     models return a summary of their thinking, so their count is the summary's.
//
// Streamed logs are read as the reader reads every response, one logged object: no chunks.

// thoughts is what a logged answer says of its thinking.
type thoughts struct {
	// beside are thinking texts logged beside the answer's text (counted toward the output
	// when usage is absent); inText are those inside it (a <think> block of the content,
	// already counted with it).
	beside, inText []string
	// logged says the answer carries its thinking (possibly empty); hidden that part of it
	// is not in the log (a redacted_thinking block, a reasoning item without content).
	logged, hidden bool
}

// loggedReasoning reads usage's details object's reasoning_tokens (chat and completions:
// completion_tokens_details; the Responses API: output_tokens_details) into the options. It
// is part of the output, so one larger than the logged output count is an error.
func loggedReasoning(u map[string]any, details, name string, e *entry) error {
	d, ok := u[details].(map[string]any)
	if !ok {
		return nil
	}
	field := name + ".usage." + details + ".reasoning_tokens"
	n, err := tokenCount(d["reasoning_tokens"], field)
	if err != nil || n < 0 {
		return err
	}
	if e.usageCompletion >= 0 && n > e.usageCompletion {
		return bad(field, "%d reasoning tokens, more than the %d output tokens they are part of", n, e.usageCompletion)
	}
	e.opts.ReasoningTokens = &n
	return nil
}

// chatThoughts reads a chat choice's thinking: its message's reasoning_content (else
// reasoning), else a <think> block opening its content (text). A completions choice has none.
func chatThoughts(cv any, text, f string, e *entry) error {
	c, _ := cv.(map[string]any)
	msg, ok := c["message"].(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range []string{"reasoning_content", "reasoning"} {
		switch s := msg[k].(type) {
		case nil:
			continue
		case string:
			e.thinking.beside, e.thinking.logged = append(e.thinking.beside, s), true
			return nil
		default:
			return bad(f+".message."+k, "not a string")
		}
	}
	if inner, ok := thinkBlock(text); ok {
		e.thinking.inText, e.thinking.logged = append(e.thinking.inText, inner), true
	}
	return nil
}

// thinkBlock is the text of a <think> block opening content (after white space), to its
// </think> or, unclosed, to the end, less the white space around it; ok is false when the
// content opens with none.
func thinkBlock(content string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(content, " \t\r\n"), "<think>")
	if !ok {
		return "", false
	}
	inner, _, _ := strings.Cut(rest, "</think>")
	return strings.TrimSpace(inner), true
}

// responsesThoughts reads a Responses reasoning output item: its content parts' text, or,
// when it has none, that its thought is not in the log.
func responsesThoughts(item map[string]any, f string, e *entry) error {
	parts, _ := item["content"].([]any)
	if len(parts) == 0 {
		e.thinking.hidden = true
		return nil
	}
	texts := make([]string, 0, len(parts))
	for i, pv := range parts {
		p, _ := pv.(map[string]any)
		s, ok := p["text"].(string)
		if !ok {
			return bad(fmt.Sprintf("%s.content[%d].text", f, i), "missing or not a string")
		}
		texts = append(texts, s)
	}
	e.thinking.beside, e.thinking.logged = append(e.thinking.beside, strings.Join(texts, "\n")), true
	return nil
}

// countThoughts counts the logged thinking into the options when usage did not say it: nil
// when the log holds no thought or hides part of one; never more than the output (out),
// which the tokenizer, not the logged model's, may count differently.
func (r *Reader) countThoughts(e *entry, out int) {
	t := e.thinking
	if e.opts.ReasoningTokens != nil || !t.logged || t.hidden {
		return
	}
	n := 0
	for _, texts := range [][]string{t.beside, t.inText} {
		for _, s := range texts {
			n += r.opts.Tokenizer.Count(s)
		}
	}
	n = min(n, out)
	e.opts.ReasoningTokens = &n
}
