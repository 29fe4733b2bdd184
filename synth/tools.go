package synth

import (
	"encoding/json"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/trace"
)

// tools.go sizes chat prompts whose request offers tools: the server's chat template renders
// the tool definitions into the prompt (Qwen3 into the system turn, Llama 3.1 into the first
// user turn), so the synthesized messages are shortened by exactly what the template renders
// for them, and the prompt the server counts still has the logged length.

// maxToolSets bounds the tool-overhead cache: logs repeat a few tool sets, and a log whose
// every request has its own set is measured each time rather than held.
const maxToolSets = 4096

// recordTools is the tools JSON the record's request will be sent with, in the chat shape
// the template renders: its logged tools for the chat family when Config.Tools is set (the
// Responses API's and Anthropic's converted as the engines convert them, chat.ToolsAsChat),
// nil otherwise. A conversion that fails is the plan's error.
func (b *Builder) recordTools(rec trace.Record) (json.RawMessage, error) {
	if !b.templated(rec) || !b.cfg.Tools || rec.Options == nil || len(rec.Options.Tools) == 0 {
		return nil, nil
	}
	api := string(b.apiOf(rec))
	if api == trace.APIChat {
		return rec.Options.Tools, nil
	}
	k := api + "\x00" + string(rec.Options.Tools)
	if t, ok := b.chatTools[k]; ok {
		return t, nil
	}
	t, err := chat.ToolsAsChat(api, rec.Options.Tools)
	if err != nil {
		return nil, err
	}
	if len(b.chatTools) < maxToolSets {
		b.chatTools[k] = t
	}
	return t, nil
}

// toolsOverhead is the tokens the template adds for tools on top of a one-message
// conversation's own overhead; 0 for none. It runs in plan, sequentially.
func (b *Builder) toolsOverhead(tools json.RawMessage) (int, error) {
	if len(tools) == 0 {
		return 0, nil
	}
	if o, ok := b.toolCost[string(tools)]; ok {
		return o, nil
	}
	conv := b.probe(1)
	with, err := b.tpl.RenderTools(conv, tools)
	if err != nil {
		return 0, err
	}
	without, err := b.tpl.Render(conv)
	if err != nil {
		return 0, err
	}
	o := len(b.tok.Encode(with, false)) - len(b.tok.Encode(without, false))
	if len(b.toolCost) < maxToolSets {
		b.toolCost[string(tools)] = o
	}
	return o, nil
}

// render is the chat prompt of msgs offered tools (none when nil).
func (b *Builder) render(msgs []chat.Message, tools json.RawMessage) (string, error) {
	if len(tools) == 0 {
		return b.tpl.Render(msgs)
	}
	return b.tpl.RenderTools(msgs, tools)
}

// RecordOverhead is what the server adds to the content of the record's prompt as a fresh
// (single-message) prompt: the chat template's overhead with the record's tools, or the
// tokenizer's specials for completions. A record with no more prompt tokens than this cannot
// be replayed.
func (b *Builder) RecordOverhead(rec trace.Record) (int, error) {
	if err := b.checkAPI(rec, where(rec, b.next)); err != nil {
		return 0, err
	}
	fixed, err := b.fixedOverhead(rec, 1)
	if err != nil {
		return 0, err
	}
	tools, err := b.recordTools(rec)
	if err != nil {
		return 0, err
	}
	t, err := b.toolsOverhead(tools)
	return fixed + t, err
}
