package genlog

import (
	"encoding/json"
	"math/rand/v2"
	"time"
)

// optGen draws the options of a log with Config.Options, from its own random stream (o; its
// text from og), so the plain log's draws are left as they were.
type optGen struct {
	o        *rand.Rand
	og       *gen
	sets     []*toolSet
	formats  []json.RawMessage
	maxCalls int
	nextID   int
}

func newOptGen(cfg Config) *optGen {
	o := rand.New(rand.NewPCG(cfg.Seed^0x0971, cfg.Seed+0x7f))
	p := &optGen{o: o, og: &gen{r: o}, maxCalls: cfg.MaxParallelCalls}
	if p.maxCalls == 0 {
		p.maxCalls = 2
	}
	p.sets = newToolSets(p.og)
	p.formats = newFormats(p.og)
	return p
}

// newFormats draws the response formats: a JSON schema (descriptions, a title, an enum),
// json_object and text.
func newFormats(og *gen) []json.RawMessage {
	schema := obj("type", "object", "title", og.sentence(2), "properties", obj(
		"summary", obj("type", "string", "description", og.sentence(9)),
		"sentiment", obj("type", "string", "enum", arr("positive", "negative", "neutral")),
		"score", obj("type", "number", "minimum", 0, "maximum", 1),
		"tags", obj("type", "array", "items", obj("type", "string", "description", og.sentence(4)))),
		"required", arr("summary", "sentiment"), "additionalProperties", false)
	return []json.RawMessage{
		obj("type", "json_schema", "json_schema", obj("name", "extraction", "description", og.sentence(7), "schema", schema, "strict", true)),
		obj("type", "json_object"),
		obj("type", "text"),
	}
}

// optionSet is a body being built and the trace.Options JSON a reader must make of it.
type optionSet struct {
	body, want map[string]any
}

// both puts the same value in the body and the expected options.
func (s optionSet) both(k string, v any) {
	s.body[k] = v
	s.want[k] = v
}

// draw is a percent chance.
func (p *optGen) draw(pct int) bool { return p.o.IntN(100) < pct }

func (p *optGen) pick(xs ...any) any { return xs[p.o.IntN(len(xs))] }

// body draws a request's body with its options. Agents' requests carry their tools (and a
// tool_choice sometimes); others may ask for a response_format or n > 1.
func (p *optGen) body(t *Truth) optionSet {
	s := optionSet{body: map[string]any{"model": "qwen3-8b"}, want: map[string]any{"api": "completions"}}
	if t.Chat {
		s.body["messages"] = t.Messages
		s.want["api"] = "chat"
	} else {
		s.body["prompt"] = t.Prompt
	}
	p.stream(s)
	p.sampling(s, t)
	p.maxTokens(s, t.Chat)
	if t.Tools != nil {
		p.tools(s, t.Tools)
	} else if t.Chat && p.draw(11) {
		s.both("response_format", p.formats[p.o.IntN(len(p.formats))])
	}
	p.unknown(s, t)
	return s
}

func (p *optGen) stream(s optionSet) {
	switch k := p.o.IntN(100); {
	case k < 70:
		s.both("stream", true)
		if k < 35 {
			s.body["stream_options"] = map[string]any{"include_usage": true}
			s.want["include_usage"] = true
		} else if k < 40 {
			s.body["stream_options"] = map[string]any{"include_usage": false}
			s.want["include_usage"] = false
		}
	case k < 95:
		s.both("stream", false)
	default: // no "stream": the API's default, not streamed, which the reader must say
		s.want["stream"] = false
	}
}

// sampling draws temperature, top_p, seed, stop, penalties, logprobs and (not for agents,
// nor for tool calls) n.
func (p *optGen) sampling(s optionSet, t *Truth) {
	if p.draw(60) {
		s.both("temperature", p.pick(0.0, 0.2, 0.7, 1.0, 1.3))
	}
	if p.draw(25) {
		s.both("top_p", p.pick(0.9, 0.95, 1.0))
	}
	if p.draw(15) {
		s.both("seed", p.o.Int64N(1<<31))
	}
	if p.draw(15) {
		stop := p.pick("\n\n", "END", []string{"</answer>", "\n\nUser:"}, []string{"###"})
		s.body["stop"] = stop
		if one, ok := stop.(string); ok {
			stop = []string{one}
			s.want["stop_string"] = true // sent back as one string, as logged
		}
		s.want["stop"] = stop
	}
	for _, k := range []string{"presence_penalty", "frequency_penalty"} {
		if p.draw(10) {
			s.both(k, p.pick(0.0, 0.5, 1.2))
		}
	}
	if t.Tools == nil && p.draw(5) {
		s.both("n", 2+p.o.IntN(2))
	}
	p.logprobs(s, t.Chat)
}

// logprobs: chat's flag and top_logprobs, or a completion's count.
func (p *optGen) logprobs(s optionSet, isChat bool) {
	if !p.draw(6) {
		return
	}
	k := p.o.IntN(6)
	s.want["logprobs"] = true
	if !isChat {
		s.body["logprobs"] = k
		s.want["top_logprobs"] = k
		return
	}
	s.body["logprobs"] = true
	if p.draw(50) {
		s.both("top_logprobs", k)
	}
}

func (p *optGen) maxTokens(s optionSet, isChat bool) {
	switch k := p.o.IntN(100); {
	case isChat && k < 35:
		s.body["max_completion_tokens"] = 512
		s.want["max_tokens_field"] = "max_completion_tokens"
	case k < 95:
		s.body["max_tokens"] = 512
		s.want["max_tokens_field"] = "max_tokens"
	}
}

func (p *optGen) tools(s optionSet, tools json.RawMessage) {
	s.both("tools", tools)
	switch k := p.o.IntN(10); {
	case k < 3:
		s.both("tool_choice", "auto")
	case k < 4:
		s.both("tool_choice", "required")
	case k < 5:
		s.both("tool_choice", obj("type", "function", "function", obj("name", "get_weather")))
	}
	if p.draw(20) {
		s.both("parallel_tool_calls", p.draw(50))
	}
}

// unknown adds fields a reader does not replay, which it must list.
func (p *optGen) unknown(s optionSet, t *Truth) {
	if p.draw(5) {
		s.body["metadata"] = map[string]any{"tenant": "t" + p.og.word()}
		t.Unknown = append(t.Unknown, "metadata")
	}
	if p.draw(3) {
		s.body["service_tier"] = "auto"
		t.Unknown = append(t.Unknown, "service_tier")
	}
	if p.draw(2) {
		s.body["logit_bias"] = map[string]int{"50256": -100}
		t.Unknown = append(t.Unknown, "logit_bias")
	}
	if so, ok := s.body["stream_options"].(map[string]any); ok && p.draw(10) {
		so["continuous_usage_stats"] = true
		t.Unknown = append(t.Unknown, "stream_options.continuous_usage_stats")
	}
}

// optLine is the JSON shape of a line of a log with options: the outcome beside the request.
type optLine struct {
	Timestamp    any            `json:"timestamp"`
	Request      any            `json:"request"`
	Response     map[string]any `json:"response,omitempty"`
	Status       int            `json:"status,omitempty"`
	Cancelled    bool           `json:"cancelled,omitempty"`
	DurationMS   *float64       `json:"duration_ms,omitempty"`
	EndTimestamp string         `json:"end_timestamp,omitempty"`
}

// optionLine is the line of a request of a log with options.
func (g *gen) optionLine(t Truth) (Truth, []byte, error) {
	p := g.opt
	t.logged()
	s := p.body(&t)
	body, err := marshal(s.body)
	if err != nil {
		return t, nil, err
	}
	t.Body = body
	l := optLine{Timestamp: g.timestamp(), Request: json.RawMessage(body)}
	if g.r.IntN(10) == 0 { // a body logged as a JSON string
		l.Request = string(body)
	}
	// Requests outside a conversation may be given up on: a conversation's next turn needs
	// the answer.
	if t.Turn == 0 && t.Tools == nil && !g.inConversation(t) && p.draw(5) {
		p.cancel(&t, &l, s.want, g.clock)
		err = g.count(&t, nil)
	} else {
		usage := p.respond(&t, &l, s)
		err = g.count(&t, usage)
	}
	if err != nil {
		return t, nil, err
	}
	if t.Options, err = marshal(s.want); err != nil {
		return t, nil, err
	}
	raw, err := marshal(l)
	return t, raw, err
}

// inConversation says t's conversation goes on after it (a new chat with turns to come).
func (g *gen) inConversation(t Truth) bool {
	for _, c := range g.active {
		if c.id == t.Conversation {
			return true
		}
	}
	return false
}

// respond draws the logged response: n choices (tool calls, or text), their finish reasons,
// usage mostly, and a status sometimes (the line's or the response's).
func (p *optGen) respond(t *Truth, l *optLine, s optionSet) map[string]any {
	n, _ := s.want["n"].(int)
	choices := []any{p.choice(t, 0, t.Response, s.want)}
	for i := 1; i < n; i++ {
		text := p.og.text(10 + p.o.IntN(60))
		t.MoreResponses = append(t.MoreResponses, text)
		choices = append(choices, p.choice(t, i, text, nil))
	}
	l.Response = map[string]any{"choices": choices}
	switch k := p.o.IntN(10); {
	case k < 3:
		l.Status = 200
		s.want["status"] = 200
	case k < 4:
		l.Response["status_code"] = 200
		s.want["status"] = 200
	}
	usage := map[string]any{}
	if p.draw(85) {
		usage["completion_tokens"] = (5 + p.o.IntN(300)) * max(n, 1)
	}
	l.Response["usage"] = usage
	return usage
}

// choice is choice i of the response; the first one's finish_reason goes into want.
func (p *optGen) choice(t *Truth, i int, text string, want map[string]any) map[string]any {
	c := map[string]any{"index": i}
	fr := p.pick("stop", "stop", "stop", "stop", "stop", "stop", "stop", "stop", "stop", "length").(string)
	switch {
	case !t.Chat:
		c["text"] = text
		fr = p.pick("length", "length", "stop").(string)
	case i == 0 && t.ToolCalls != nil:
		c["message"] = map[string]any{"role": "assistant", "content": nil, "tool_calls": t.ToolCalls}
		fr = "tool_calls"
	default:
		c["message"] = map[string]any{"role": "assistant", "content": text}
	}
	c["finish_reason"] = fr
	if want != nil {
		want["finish_reason"] = fr
	}
	return c
}

// cancel makes the line a request the client gave up on: a 499 with its duration, or
// "cancelled": true with the time it ended; what was generated before logged half the time,
// never usage.
func (p *optGen) cancel(t *Truth, l *optLine, want map[string]any, start time.Time) {
	t.Cancelled = true
	want["cancelled"] = true
	if p.draw(70) {
		ms := float64(200+p.o.IntN(30000)) + 0.25*float64(p.o.IntN(4))
		l.Status, l.DurationMS = 499, &ms
		want["status"], want["cancel_after_ms"] = 499, ms
	} else {
		d := time.Duration(p.o.Int64N(int64(20 * time.Second)))
		l.Cancelled, l.EndTimestamp = true, start.Add(d).Format(time.RFC3339Nano)
		if d > 0 {
			want["cancel_after_ms"] = float64(d) / float64(time.Millisecond)
		}
	}
	if !p.draw(50) {
		t.Response = ""
		return
	}
	runes := []rune(t.Response)
	t.Response = string(runes[:len(runes)/2])
	c := map[string]any{"index": 0, "text": t.Response}
	if t.Chat {
		c = map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": t.Response}}
	}
	l.Response = map[string]any{"choices": []any{c}}
}
