package requestlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/jsonv"
	"github.com/llm-replay/replay/trace"
)

// entry is one parsed log line: what the request asked and what the response said, still as
// text (tokenizing is the reader's job).
type entry struct {
	time  time.Time
	model string

	// api is the API the request was sent to (trace.APIChat, ...); chat says it is a
	// conversation rendered through the chat template (chat, responses, messages), whose
	// messages are in the chat API's shape whatever the API's own.
	api       string
	chat      bool
	messages  []chat.Message
	prompt    string
	promptIDs []int // a completions prompt logged as token ids
	// inputs are an embeddings request's: texts, or token id lists (inputIDs).
	inputs    []string
	inputIDs  [][]int
	inputList bool // the input was an array
	// addSpecial is whether plain text is encoded with the tokenizer's specials (vLLM's
	// add_special_tokens, true unless the body says otherwise).
	addSpecial bool
	// respID is the logged response's id and prevID the body's previous_response_id
	// (Responses API); output is the logged response as the assistant turn a chained request
	// continues from (nil when it had none).
	respID, prevID string
	output         *chat.Message
	// instructions says e.messages[0] is the Responses body's instructions, which a chained
	// request does not inherit (https://platform.openai.com/docs/api-reference/responses/create).
	instructions bool
	// useRefs are the tool calls of Anthropic tool_use blocks, whose input objects the
	// reader writes back in their logged key order from the body's text (see rawOptions).
	useRefs []useRef

	// Usage as the server reported it (-1 when absent).
	usagePrompt, usageCompletion int
	// responseText is the generated text (choices[0]); hasResponse says it was in the log.
	// moreText are the other choices' texts (n > 1), which count toward the output too.
	responseText string
	hasResponse  bool
	moreText     []string
	// thinking is the answer's logged thinking, counted into opts.ReasoningTokens when usage
	// does not say it (reasoning.go).
	thinking thoughts

	session, user string
	// headers are the request's logged headers, credentials already dropped (headers.go).
	headers []trace.Header

	// opts are the body's options and the logged outcome; its JSON options (tools,
	// tool_choice, response_format or text, Fields) are filled by the reader from the body's
	// text, which needRaw says it needs. fields names the members carried in opts.Fields and
	// those dropped.
	opts    *trace.Options
	needRaw bool
	fields  bodyOptions
	// tools are the body's tools in the chat API's shape, their text as logged, for the chat
	// template (nil when none).
	tools json.RawMessage
	// media are the chat messages' image_url and input_audio parts, read into media parts by count.
	media []loggedPart
}

// fieldError is a bad or missing field of a line; the reader adds the file and line.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return fmt.Sprintf("field %q: %v", e.field, e.err) }
func (e *fieldError) Unwrap() error { return e.err }

var errMissing = errors.New("missing")

func bad(field string, format string, args ...any) error {
	return &fieldError{field: field, err: fmt.Errorf(format, args...)}
}

// decode parses one JSON value keeping numbers exact (json.Number), as encoding/json with
// UseNumber does, only faster: it was a fifth of the time of reading a log.
func decode(data []byte) (any, error) { return jsonv.Decode(data) }

// lookup walks a dotted path; a string met where an object is needed is parsed as JSON (a body
// logged as text). ok is false when a step is absent or null.
func lookup(v any, path []string) (any, bool, error) {
	for _, k := range path {
		if s, isStr := v.(string); isStr {
			parsed, err := decode([]byte(s))
			if err != nil {
				return nil, false, fmt.Errorf("a string that is not JSON where an object with %q is expected: %w", k, err)
			}
			v = parsed
		}
		obj, isObj := v.(map[string]any)
		if !isObj {
			return nil, false, nil
		}
		v = obj[k]
		if v == nil {
			return nil, false, nil
		}
	}
	return v, true, nil
}

// object returns v as an object, parsing a JSON string holding one.
func object(v any) (map[string]any, bool) {
	if s, ok := v.(string); ok {
		parsed, err := decode([]byte(s))
		if err != nil {
			return nil, false
		}
		v = parsed
	}
	o, ok := v.(map[string]any)
	return o, ok
}

// parseLine reads one log line under mapping m; unit is the unit of numeric timestamps.
func parseLine(data []byte, m mapping, unit time.Duration) (entry, error) {
	e := entry{usagePrompt: -1, usageCompletion: -1}
	root, err := decode(data)
	if err != nil {
		return e, fmt.Errorf("not a JSON object: %w", err)
	}
	if _, ok := root.(map[string]any); !ok {
		return e, errors.New("not a JSON object")
	}
	l := line{root: root, m: m}
	if e.time, err = l.timestamp(unit); err != nil {
		return e, err
	}
	req, err := l.request(&e)
	if err != nil {
		return e, err
	}
	if e.opts, e.fields, err = parseOptions(req, l.m.name("request"), e.api); err != nil {
		return e, err
	}
	e.needRaw = len(e.fields.carried) > 0 || len(e.useRefs) > 0
	for _, k := range rawOptionFields {
		e.needRaw = e.needRaw || req[k] != nil
	}
	if err := l.model(&e); err != nil {
		return e, err
	}
	if e.headers, err = l.headers(); err != nil {
		return e, err
	}
	if err := l.response(&e); err != nil {
		return e, err
	}
	if err := l.outcome(&e, unit); err != nil {
		return e, err
	}
	// A request the client gave up on may have no usage and no text: its output is what was
	// generated before, 0 when the log does not say. An embeddings request generates none.
	if e.api == trace.APIEmbeddings {
		e.usageCompletion = 0
	}
	if e.usageCompletion < 0 && !e.hasResponse && !e.opts.Cancelled {
		return e, bad(l.m.name("response"), "neither %s: the output length is unknown", outputFields[e.api])
	}
	if err := l.ids(&e); err != nil {
		return e, err
	}
	if e.user == "" {
		if u, isStr := req["user"].(string); isStr {
			e.user = u
		}
	}
	return e, nil
}

// outputFields name where each API's answer says its output length.
var outputFields = map[string]string{
	trace.APIChat:        "usage.completion_tokens nor choices[0] text",
	trace.APICompletions: "usage.completion_tokens nor choices[0] text",
	trace.APIResponses:   "usage.output_tokens nor output",
	trace.APIMessages:    "usage.output_tokens nor content",
}

// line is a decoded log line and the mapping that says where its fields are.
type line struct {
	root any
	m    mapping
}

// get finds field f; ok is false when it is not mapped, absent or null.
func (l line) get(f string) (any, bool, error) {
	p := l.m[f]
	if len(p) == 0 {
		return nil, false, nil
	}
	v, ok, err := lookup(l.root, p)
	if err != nil {
		return nil, false, &fieldError{field: l.m.name(f), err: err}
	}
	return v, ok, nil
}

func (l line) timestamp(unit time.Duration) (time.Time, error) {
	tv, ok, err := l.get("timestamp")
	if err != nil {
		return time.Time{}, err
	}
	if !ok { // the fix is where the line keeps its time, which --map names
		return time.Time{}, &fieldError{field: l.m.name("timestamp"),
			err: fmt.Errorf("%w: pass --map timestamp=KEY naming the key that holds the request's time (RFC 3339 or epoch seconds)", errMissing)}
	}
	t, err := parseTime(tv, unit)
	if err != nil {
		return time.Time{}, &fieldError{field: l.m.name("timestamp"), err: err}
	}
	return t, nil
}

// request reads the request body into e and returns it.
func (l line) request(e *entry) (map[string]any, error) {
	rv, ok, err := l.get("request")
	if err != nil {
		return nil, err
	}
	rname := l.m.name("request")
	if !ok {
		return nil, &fieldError{field: rname, err: errMissing}
	}
	req, ok := object(rv)
	if !ok {
		return nil, bad(rname, "not a JSON object (or a string holding one)")
	}
	if e.api, err = l.api(req); err != nil {
		return nil, err
	}
	return req, parseRequest(req, rname, e)
}

// model reads the mapped model, by default the request body's own (already in e).
func (l line) model(e *entry) error {
	mv, ok, err := l.get("model")
	if err != nil || !ok {
		return err
	}
	s, isStr := mv.(string)
	if !isStr {
		return bad(l.m.name("model"), "not a string")
	}
	e.model = s
	return nil
}

// response reads the usage and/or the generated text, when the line has a response.
func (l line) response(e *entry) error {
	v, ok, err := l.get("response")
	if err != nil || !ok {
		return err
	}
	resp, isObj := object(v)
	if !isObj {
		return bad(l.m.name("response"), "not a JSON object (or a string holding one)")
	}
	return parseResponse(resp, l.m.name("response"), e)
}

// ids reads the logged session id and user, strings or numbers.
func (l line) ids(e *entry) error {
	for _, f := range []string{"session_id", "user"} {
		v, ok, err := l.get(f)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case json.Number:
			s = x.String()
		default:
			return bad(l.m.name(f), "not a string or number")
		}
		if f == "session_id" {
			e.session = s
		} else {
			e.user = s
		}
	}
	return nil
}

// parseRequest reads the body of a request to e.api: its conversation as chat messages
// (chat, responses, messages), its prompt (completions) or its inputs (embeddings).
func parseRequest(req map[string]any, name string, e *entry) error {
	if s, ok := req["model"].(string); ok {
		e.model = s
	}
	e.chat = trace.ChatFamily(e.api)
	e.addSpecial = true
	content := map[string]string{trace.APIChat: "messages", trace.APICompletions: "prompt",
		trace.APIResponses: "input", trace.APIMessages: "messages", trace.APIEmbeddings: "input"}[e.api]
	v := req[content]
	if v == nil {
		return &fieldError{field: name + "." + content, err: fmt.Errorf("missing: a %s request has one", e.api)}
	}
	switch e.api {
	case trace.APIChat:
		return parseMessages(v, name, e)
	case trace.APICompletions:
		return parsePrompt(v, name, e)
	case trace.APIResponses:
		return parseResponsesRequest(req, name, e)
	case trace.APIMessages:
		return parseAnthropicRequest(req, name, e)
	}
	return parseEmbeddingsRequest(req, name, e)
}

// parseMessages reads a chat request's messages.
func parseMessages(msgs any, name string, e *entry) error {
	list, ok := msgs.([]any)
	if !ok {
		return bad(name+".messages", "not an array")
	}
	if len(list) == 0 {
		return bad(name+".messages", "empty")
	}
	e.messages = make([]chat.Message, len(list))
	for i, mv := range list {
		f := fmt.Sprintf("%s.messages[%d]", name, i)
		mo, ok := mv.(map[string]any)
		if !ok {
			return bad(f, "not an object")
		}
		m, imgs, err := parseMessage(mo, f, i)
		if err != nil {
			return err
		}
		e.messages[i] = m
		e.media = append(e.media, imgs...)
	}
	return nil
}

// parsePrompt reads a completions request's prompt: text, or one prompt as token ids.
func parsePrompt(prompt any, name string, e *entry) error {
	switch p := prompt.(type) {
	case string:
		e.prompt = p
		return nil
	case []any:
		// One prompt as token ids, or a batch of one string.
		if len(p) == 1 {
			if s, ok := p[0].(string); ok {
				e.prompt = s
				return nil
			}
		}
		ids := make([]int, len(p))
		for i, x := range p {
			n, ok := x.(json.Number)
			if !ok {
				return bad(name+".prompt", "an array that is neither token ids nor one string (batched prompts are not supported)")
			}
			id, err := strconv.ParseInt(n.String(), 10, 32)
			if err != nil || id < 0 {
				return bad(fmt.Sprintf("%s.prompt[%d]", name, i), "not a token id: %s", n)
			}
			ids[i] = int(id)
		}
		if len(ids) == 0 {
			return bad(name+".prompt", "empty")
		}
		e.promptIDs = ids
		return nil
	}
	return bad(name+".prompt", "not a string or an array of token ids")
}

// contentText turns a message's content into the string a server hands the template: a string
// as is, a list of text parts joined by newlines (as vLLM does), null as "".
func contentText(v any) (string, error) {
	switch c := v.(type) {
	case nil:
		return "", nil
	case string:
		return c, nil
	case []any:
		var parts []string
		for i, p := range c {
			po, ok := p.(map[string]any)
			if !ok {
				return "", fmt.Errorf("part %d is not an object", i)
			}
			if t, _ := po["type"].(string); t != "text" {
				return "", fmt.Errorf("part %d has type %q: only text parts can be counted", i, t)
			}
			s, ok := po["text"].(string)
			if !ok {
				return "", fmt.Errorf("part %d has no text", i)
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", errors.New("not a string or a list of text parts")
}

// parseResponse reads usage and the generated text of the response to e.api's request.
func parseResponse(resp map[string]any, name string, e *entry) error {
	switch e.api {
	case trace.APIResponses:
		return parseResponsesOutput(resp, name, e)
	case trace.APIMessages:
		return parseAnthropicResponse(resp, name, e)
	case trace.APIEmbeddings:
		return parseEmbeddingsResponse(resp, name, e)
	}
	if u, ok := resp["usage"].(map[string]any); ok {
		var err error
		if e.usagePrompt, err = usageCount(u, "prompt_tokens", name); err != nil {
			return err
		}
		if e.usageCompletion, err = usageCount(u, "completion_tokens", name); err != nil {
			return err
		}
		if err := loggedCached(u, "prompt_tokens_details", name, e); err != nil {
			return err
		}
		if err := loggedReasoning(u, "completion_tokens_details", name, e); err != nil {
			return err
		}
	}
	ch, _ := resp["choices"].([]any)
	for i, cv := range ch {
		f := fmt.Sprintf("%s.choices[%d]", name, i)
		text, has, err := choiceText(cv, f)
		if err != nil {
			return err
		}
		if err := chatThoughts(cv, text, f, e); err != nil {
			return err
		}
		if i > 0 {
			e.moreText = append(e.moreText, text)
			continue
		}
		e.responseText, e.hasResponse = text, has
		if fr, ok := cv.(map[string]any)["finish_reason"].(string); ok {
			e.opts.FinishReason = fr
		}
	}
	return nil
}

// loggedCached reads usage's details object's cached_tokens (chat and completions:
// prompt_tokens_details; the Responses API: input_tokens_details) into the options: the log's
// own count of prompt tokens served from the prefix cache, set beside the replay's.
func loggedCached(u map[string]any, details, name string, e *entry) error {
	d, ok := u[details].(map[string]any)
	if !ok {
		return nil
	}
	n, err := tokenCount(d["cached_tokens"], name+".usage."+details+".cached_tokens")
	if err != nil || n < 0 {
		return err
	}
	e.opts.CachedTokens = &n
	return nil
}

// usageCount reads usage member key, a token count; -1 when absent or null. name is the
// response's field, for errors.
func usageCount(u map[string]any, key, name string) (int, error) {
	return tokenCount(u[key], name+".usage."+key)
}

// tokenCount reads v as a token count, a non-negative integer; -1 when v is nil (absent or
// null). field names it, for errors.
func tokenCount(v any, field string) (int, error) {
	if v == nil {
		return -1, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return -1, bad(field, "not a number")
	}
	x, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || x < 0 || x > math.MaxInt32 {
		return -1, bad(field, "not a plausible token count: %s", n)
	}
	return int(x), nil
}

// choiceText is one choice's generated text: a chat message's content (a call with no content
// is "") or a completion's text; has is false when the choice holds neither.
func choiceText(cv any, f string) (text string, has bool, err error) {
	c, ok := cv.(map[string]any)
	if !ok {
		return "", false, bad(f, "not an object")
	}
	if msg, ok := c["message"].(map[string]any); ok {
		s, err := contentText(msg["content"])
		if err != nil {
			return "", false, &fieldError{field: f + ".message.content", err: err}
		}
		return s, true, nil
	}
	if t, ok := c["text"].(string); ok {
		return t, true, nil
	}
	return "", false, nil
}

// parseTime reads RFC3339 text, or epoch time as a number or numeric string in unit.
func parseTime(v any, unit time.Duration) (time.Time, error) {
	var num string
	switch x := v.(type) {
	case json.Number:
		num = x.String()
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t, nil
		}
		if _, err := strconv.ParseFloat(x, 64); err != nil {
			return time.Time{}, fmt.Errorf("%q is neither RFC3339 nor a number", x)
		}
		num = x
	default:
		return time.Time{}, errors.New("not a string or number")
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return time.Time{}, fmt.Errorf("not a valid epoch time: %s", num)
	}
	// Integers are converted exactly; fractions to the nanosecond.
	if i, err := strconv.ParseInt(num, 10, 64); err == nil {
		if i > math.MaxInt64/int64(unit) {
			return time.Time{}, fmt.Errorf("epoch time out of range: %s", num)
		}
		return time.Unix(0, i*int64(unit)).UTC(), nil
	}
	// A plain decimal is converted exactly (float64 cannot hold epoch nanoseconds).
	if ip, fp, ok := strings.Cut(num, "."); ok && fp != "" && len(fp) <= 9 && strings.Trim(fp, "0123456789") == "" {
		if i, err := strconv.ParseInt(ip, 10, 64); err == nil && i <= math.MaxInt64/int64(unit)-1 {
			frac, _ := strconv.ParseInt(fp+strings.Repeat("0", 9-len(fp)), 10, 64) // nanos of one unit
			return time.Unix(0, i*int64(unit)+frac*int64(unit)/1e9).UTC(), nil
		}
	}
	ns := f * float64(unit)
	if ns > math.MaxInt64/2 {
		return time.Time{}, fmt.Errorf("epoch time out of range: %s", num)
	}
	return time.Unix(0, int64(math.Round(ns))).UTC(), nil
}
