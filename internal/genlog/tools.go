package genlog

import (
	"encoding/json"
	"fmt"

	"github.com/llm-replay/replay/chat"
)

// toolSet is the tools one agent offers: their definitions as sent and, for each tool, how a
// call's arguments are drawn.
type toolSet struct {
	raw   json.RawMessage
	names []string
	args  []func(og *gen) string
}

// newToolSets draws the agents' tool definitions, their descriptions in the log's own words
// (so a reader that leaks them is caught), with enums, defaults, titles, patterns and nested
// objects for the redaction and the templates to get through.
func newToolSets(og *gen) []*toolSet {
	weather := obj("type", "function", "function", obj("name", "get_weather", "description", og.sentence(12),
		"parameters", obj("type", "object", "properties", obj(
			"city", obj("type", "string", "description", og.sentence(6)),
			"unit", obj("type", "string", "enum", arr("celsius", "fahrenheit")),
			"days", obj("type", "integer", "minimum", 1, "maximum", 14)),
			"required", arr("city"))))
	search := obj("type", "function", "function", obj("name", "search_docs", "description", og.text(25),
		"parameters", obj("type", "object", "properties", obj(
			"query", obj("type", "string", "description", og.sentence(8)),
			"filters", obj("type", "object", "title", og.sentence(3), "properties", obj(
				"year", obj("type", "integer"), "tags", obj("type", "array", "items", obj("type", "string")))),
			"limit", obj("type", "integer", "default", 5)),
			"required", arr("query"), "additionalProperties", false)))
	order := obj("type", "function", "function", obj("name", "lookup_order", "description", og.sentence(9),
		"parameters", obj("type", "object", "properties", obj(
			"order_id", obj("type", "string", "pattern", "^[A-Z]{2}[0-9]{6}$", "description", og.sentence(5))),
			"required", arr("order_id")), "strict", true))
	args := map[string]func(og *gen) string{
		"get_weather":  func(og *gen) string { return string(obj("city", og.word(), "unit", "celsius", "days", 1+og.r.IntN(7))) },
		"search_docs":  func(og *gen) string { return string(obj("query", og.sentence(5), "limit", 3)) },
		"lookup_order": func(og *gen) string { return fmt.Sprintf(`{"order_id": "AB%06d"}`, og.r.IntN(1000000)) },
	}
	set := func(names []string, defs ...json.RawMessage) *toolSet {
		s := &toolSet{raw: arr(toAny(defs)...), names: names}
		for _, n := range names {
			s.args = append(s.args, args[n])
		}
		return s
	}
	return []*toolSet{
		set([]string{"get_weather"}, weather),
		set([]string{"get_weather", "search_docs"}, weather, search),
		set([]string{"search_docs", "lookup_order"}, search, order),
	}
}

func toAny(rs []json.RawMessage) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}

// maybeAgent makes a new conversation an agent's, with tools, one time in seven.
func (p *optGen) maybeAgent(c *conversation) {
	if p.o.IntN(7) == 0 {
		c.set = p.sets[p.o.IntN(len(p.sets))]
		c.tools = c.set.raw
	}
}

// callsNow says an agent's answer is tool calls rather than text.
func (p *optGen) callsNow() bool { return p.o.IntN(100) < 55 }

// calls draws an assistant turn's tool calls: one, sometimes parallel ones.
func (p *optGen) calls(c *conversation) []chat.ToolCall {
	n := 1
	if p.maxCalls > 1 && p.o.IntN(4) == 0 {
		n = 2
	}
	out := make([]chat.ToolCall, n)
	for i := range out {
		k := p.o.IntN(len(c.set.names))
		p.nextID++
		out[i] = chat.ToolCall{ID: fmt.Sprintf("call_%d", p.nextID), Type: "function",
			Function: chat.FunctionCall{Name: c.set.names[k], Arguments: c.set.args[k](p.og)}}
	}
	return out
}

// answerCalls adds the tool answers to a conversation whose last turn called tools: JSON
// results mostly, plain text sometimes, named half the time.
func (p *optGen) answerCalls(c *conversation) {
	for _, call := range c.pending {
		content := string(obj("result", p.og.sentence(10), "ok", true))
		if p.o.IntN(3) == 0 {
			content = p.og.sentence(8)
		}
		m := chat.Message{Role: "tool", ToolCallID: call.ID, Content: content}
		if p.o.IntN(2) == 0 {
			m.Name = call.Function.Name
		}
		c.messages = append(c.messages, m)
	}
	c.pending = nil
}
