package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Request is a parsed request body, reduced to what the simulator uses: a chat or completions
// body, or a Responses or Messages API body as the chat request of the same conversation.
type Request struct {
	// Chat is true for /v1/chat/completions (and the Responses and Messages APIs).
	Chat  bool
	Model string
	// Messages holds a chat request's messages, and Tools its tools list as sent (nil when it
	// offers none): the chat template renders both into the prompt (Config.ChatCounter).
	Messages []Message
	Tools    json.RawMessage
	// PromptText is a completions prompt given as text.
	PromptText string
	// PromptIDs is a completions prompt given as token ids (HasIDs is then true).
	PromptIDs []int
	HasIDs    bool
	// MaxTokens is max_tokens, else max_completion_tokens, else the configured default: the
	// length of every choice.
	MaxTokens int
	MinTokens int
	IgnoreEOS bool
	// Thinking is how many of each choice's first tokens are thinking, streamed in the API's
	// reasoning dialect before the answer: vLLM's thinking_token_budget, which the simulator
	// spends whole (as it runs the answer to its cap under ignore_eos), at most MaxTokens. A
	// completions request and one answered with JSON (Content) do not think.
	Thinking int
	// Priority is vLLM's priority field: among waiting requests, a lower value is admitted
	// first (vLLM's priority scheduling policy); 0 when absent.
	Priority     int
	Stream       bool
	IncludeUsage bool
	// N is the number of choices (n, 1 when absent), each MaxTokens long; usage counts them all.
	N int
	// Structured is true when decoding is constrained, which is what makes it slower per token
	// (Config.StructuredDecodeFactor): a response_format of json_object, json_schema or
	// structural_tag, a non-empty tools list (unless tool_choice is "none"), or one of vLLM's
	// own guided_json, guided_regex, guided_choice, guided_grammar or structured_outputs.
	Structured bool
	// Content is what a chat request answers with when it asks for JSON (a tool call forced by
	// tool_choice, or response_format json_object or json_schema); nil means the filler, as for
	// every other request, structural_tag and vLLM's guided fields included.
	Content *Content
	// Stops is the number of stop strings given (stop). They are accepted and never matched:
	// the filler stands for text of the replayed length, so an answer ends at MaxTokens whether
	// or not a stop string could be found in " tok tok ...".
	Stops int

	// echo is what a Responses API answer repeats of its request; nil for the other APIs.
	echo *responsesEcho
}

// maxN bounds n: OpenAI's own limit, and what keeps one request's answer (n×max_tokens tokens,
// written whole in zero-cost mode) bounded.
const maxN = 128

// maxLogprobs bounds logprobs and top_logprobs as vLLM's default max_logprobs (20) does.
const maxLogprobs = 20

// wireRequest is the JSON shape accepted on both endpoints.
type wireRequest struct {
	Model               string          `json:"model"`
	Messages            []wireMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           *int            `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	ThinkingTokenBudget *int            `json:"thinking_token_budget"`
	Priority            *int            `json:"priority"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	N *int `json:"n"`

	Temperature      *float64            `json:"temperature"`
	TopP             *float64            `json:"top_p"`
	PresencePenalty  *float64            `json:"presence_penalty"`
	FrequencyPenalty *float64            `json:"frequency_penalty"`
	Seed             *int                `json:"seed"`
	Logprobs         json.RawMessage     `json:"logprobs"`
	TopLogprobs      *int                `json:"top_logprobs"`
	Stop             json.RawMessage     `json:"stop"`
	Tools            json.RawMessage     `json:"tools"`
	ToolChoice       json.RawMessage     `json:"tool_choice"`
	ResponseFormat   *wireResponseFormat `json:"response_format"`

	// vLLM's own guided-decoding fields: any non-null value constrains decoding.
	GuidedJSON        json.RawMessage `json:"guided_json"`
	GuidedRegex       json.RawMessage `json:"guided_regex"`
	GuidedChoice      json.RawMessage `json:"guided_choice"`
	GuidedGrammar     json.RawMessage `json:"guided_grammar"`
	StructuredOutputs json.RawMessage `json:"structured_outputs"`
}

// wireResponseFormat is response_format: its type, and for json_schema the schema the content
// must fit (kept raw, and read only when the type asks for it).
type wireResponseFormat struct {
	Type       *string         `json:"type"`
	JSONSchema json.RawMessage `json:"json_schema"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Name       string          `json:"name"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type wirePart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ParseRequest decodes a request body. chat selects the chat schema (messages) over the
// completions one (prompt: a string, a one-element list of strings, a list of token ids or a
// one-element list of id lists). defaultMaxTokens applies when the body gives no limit.
// Errors name the field at fault; nothing panics on any input. The sampling fields
// (temperature, top_p, presence_penalty, frequency_penalty, seed, logprobs, top_logprobs) are
// checked against vLLM's ranges and otherwise change nothing; other unknown fields are ignored.
//
// Common bodies take a fast path that reads only the fields used (zero-cost mode spends most of
// its own time here); anything unusual goes through encoding/json, and a fuzz test checks
// that both give the same result wherever the fast path answers.
func ParseRequest(body []byte, chat bool, defaultMaxTokens int) (Request, error) {
	if r, err, ok := fastParse(body, chat, defaultMaxTokens); ok {
		return r, err
	}
	return slowParse(body, chat, defaultMaxTokens)
}

// opt is a scalar field's value and whether the body gave it (null counts as not given, as
// encoding/json leaves a pointer nil). A value, not a pointer: a pointer per field would cost
// the fast parser an allocation each.
type opt[T any] struct {
	v   T
	set bool
}

func optOf[T any](p *T) opt[T] {
	if p == nil {
		return opt[T]{}
	}
	return opt[T]{*p, true}
}

// formatKind is what a response_format asks for.
type formatKind uint8

const (
	formatNone          formatKind = iota // absent or null
	formatText                            // {"type":"text"}: unconstrained
	formatJSONObject                      // any JSON object
	formatJSONSchema                      // JSON that fits json_schema.schema
	formatStructuralTag                   // vLLM's tagged structures: constrained, answered with the filler
	formatNoType                          // an object without a type
)

// formatKinds maps response_format types (vLLM's set) to kinds.
var formatKinds = map[string]formatKind{
	"text": formatText, "json_object": formatJSONObject, "json_schema": formatJSONSchema,
	"structural_tag": formatStructuralTag,
}

// constrains reports whether a format constrains decoding.
func (k formatKind) constrains() bool {
	return k == formatJSONObject || k == formatJSONSchema || k == formatStructuralTag
}

// scalars are the fields both parsers extract before one shared check (apply), so that they
// agree on every error and its order.
type scalars struct {
	n, maxTokens, maxCompletionTokens, minTokens opt[int]
	// thinking is vLLM's thinking_token_budget (engine/force.go says what it bounds there).
	thinking opt[int]
	// priority is vLLM's priority (lower is served first; 0 when absent).
	priority opt[int]
	// capName names maxTokens in errors: "" is max_tokens, the Responses API's is
	// max_output_tokens.
	capName string

	temperature, topP, presencePenalty, frequencyPenalty opt[float64]
	// logprobs is logprobs given as a count (completions); true or false leave it unset.
	logprobs, topLogprobs opt[int]

	// tools is a non-empty tools list; toolChoice says whether tool_choice lets the model
	// answer freely even with tools offered ("none") or forces a call.
	tools      bool
	toolChoice toolChoiceKind
	// guided is a non-null vLLM guided-decoding field.
	guided bool
	format formatKind
	stops  int
}

// apply checks the scalars and sets them on r.
func (f *scalars) apply(defaultMaxTokens int, r *Request) error {
	if err := f.applyLimits(defaultMaxTokens, r); err != nil {
		return err
	}
	if err := f.checkSampling(); err != nil {
		return err
	}
	if f.format == formatNoType {
		return errors.New("request body: field \"response_format.type\": missing")
	}
	r.Structured = f.format.constrains() || f.tools && f.toolChoice != toolChoiceNone || f.guided
	r.Stops = f.stops
	return nil
}

// applyLimits checks n, max_tokens (or max_completion_tokens) and min_tokens and sets them.
func (f *scalars) applyLimits(defaultMaxTokens int, r *Request) error {
	r.N = 1
	if f.n.set {
		r.N = f.n.v
		if r.N < 1 || r.N > maxN {
			return fmt.Errorf("request body: field \"n\": must be in [1, %d], got %d", maxN, r.N)
		}
	}
	capName := "max_tokens"
	if f.capName != "" {
		capName = f.capName
	}
	field := capName
	switch {
	case f.maxTokens.set:
		r.MaxTokens = f.maxTokens.v
	case f.maxCompletionTokens.set:
		r.MaxTokens, field = f.maxCompletionTokens.v, "max_completion_tokens"
	default:
		r.MaxTokens = defaultMaxTokens
	}
	if r.MaxTokens < 1 {
		return fmt.Errorf("request body: field %q: must be >= 1, got %d", field, r.MaxTokens)
	}
	if f.minTokens.set {
		r.MinTokens = f.minTokens.v
		if r.MinTokens < 0 || r.MinTokens > r.MaxTokens {
			return fmt.Errorf("request body: field \"min_tokens\": must be in [0, %s=%d], got %d", capName, r.MaxTokens, r.MinTokens)
		}
	}
	if f.thinking.set {
		if f.thinking.v < -1 {
			return fmt.Errorf("request body: field \"thinking_token_budget\": must be -1 (no budget) or >= 0, got %d", f.thinking.v)
		}
		r.Thinking = min(max(f.thinking.v, 0), r.MaxTokens)
	}
	if f.priority.set {
		r.Priority = f.priority.v
	}
	return nil
}

// checkSampling holds the sampling fields to vLLM's ranges (SamplingParams' own checks), so a
// body a real engine refuses is refused here too rather than measured.
func (f *scalars) checkSampling() error {
	bad := func(field, want string, got any) error {
		return fmt.Errorf("request body: field %q: must be %s, got %v", field, want, got)
	}
	switch {
	case f.temperature.set && f.temperature.v < 0:
		return bad("temperature", ">= 0", f.temperature.v)
	case f.topP.set && !(f.topP.v > 0 && f.topP.v <= 1):
		return bad("top_p", "in (0, 1]", f.topP.v)
	case f.presencePenalty.set && (f.presencePenalty.v < -2 || f.presencePenalty.v > 2):
		return bad("presence_penalty", "in [-2, 2]", f.presencePenalty.v)
	case f.frequencyPenalty.set && (f.frequencyPenalty.v < -2 || f.frequencyPenalty.v > 2):
		return bad("frequency_penalty", "in [-2, 2]", f.frequencyPenalty.v)
	case f.logprobs.set && (f.logprobs.v < 0 || f.logprobs.v > maxLogprobs):
		return bad("logprobs", fmt.Sprintf("true, false or a count in [0, %d]", maxLogprobs), f.logprobs.v)
	case f.topLogprobs.set && (f.topLogprobs.v < 0 || f.topLogprobs.v > maxLogprobs):
		return bad("top_logprobs", fmt.Sprintf("in [0, %d]", maxLogprobs), f.topLogprobs.v)
	}
	return nil
}

var errNoMessages = errors.New("request body: field \"messages\": missing or empty")

func promptError(err error) error { return fmt.Errorf("request body: field \"prompt\": %w", err) }

// slowParse is ParseRequest through encoding/json.
func slowParse(body []byte, chat bool, defaultMaxTokens int) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, fmt.Errorf("request body: %w", err)
	}
	r := Request{Chat: chat, Model: w.Model, IgnoreEOS: w.IgnoreEOS, Stream: w.Stream}
	if w.StreamOptions != nil {
		r.IncludeUsage = w.StreamOptions.IncludeUsage
	}
	f, err := w.scalars()
	if err != nil {
		return Request{}, err
	}
	if err := f.apply(defaultMaxTokens, &r); err != nil {
		return Request{}, err
	}
	if chat {
		if len(w.Messages) == 0 {
			return Request{}, errNoMessages
		}
		r.Messages = make([]Message, len(w.Messages))
		for i, m := range w.Messages {
			text, mm, err := chatContent(m.Content)
			if err != nil {
				return Request{}, fmt.Errorf("request body: field \"messages[%d].content\": %w", i, err)
			}
			r.Messages[i] = Message{Role: m.Role, Name: m.Name, Content: text, ToolCalls: toolCallsOf(m.ToolCalls), ToolCallID: m.ToolCallID, Images: mm.images, Audio: mm.clips}
		}
		if f.tools {
			r.Tools = w.Tools
		}
		if r.Content, err = w.contentOf(f.format, f.tools); err != nil {
			return Request{}, err
		}
		return r, nil
	}
	if err := parsePrompt(w.Prompt, &r); err != nil {
		return Request{}, promptError(err)
	}
	return r, nil
}

// scalars extracts what apply checks. The shapes it refuses here (a stop, tools, logprobs or
// response_format of the wrong kind) are ones the fast parser leaves to this one, so only
// this one words them.
func (w *wireRequest) scalars() (scalars, error) {
	f := scalars{
		n: optOf(w.N), maxTokens: optOf(w.MaxTokens), maxCompletionTokens: optOf(w.MaxCompletionTokens),
		minTokens: optOf(w.MinTokens), thinking: optOf(w.ThinkingTokenBudget), priority: optOf(w.Priority), temperature: optOf(w.Temperature), topP: optOf(w.TopP),
		presencePenalty: optOf(w.PresencePenalty), frequencyPenalty: optOf(w.FrequencyPenalty),
		topLogprobs: optOf(w.TopLogprobs),
	}
	var err error
	if f.logprobs, err = logprobsCount(w.Logprobs); err != nil {
		return f, err
	}
	if f.stops, err = stopCount(w.Stop); err != nil {
		return f, err
	}
	if f.tools, err = toolsGiven(w.Tools); err != nil {
		return f, err
	}
	f.toolChoice = toolChoiceOf(w.ToolChoice)
	if f.format, err = w.ResponseFormat.kind(); err != nil {
		return f, err
	}
	for _, g := range [][]byte{w.GuidedJSON, w.GuidedRegex, w.GuidedChoice, w.GuidedGrammar, w.StructuredOutputs} {
		f.guided = f.guided || !isNull(g)
	}
	return f, nil
}

// isNull reports a field that is absent or null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// isString reports whether raw is the JSON string want.
func isString(raw json.RawMessage, want string) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && s == want
}

// logprobsCount reads logprobs: a boolean (chat) gives no count, an integer (completions) is one.
func logprobsCount(raw json.RawMessage) (opt[int], error) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) || raw[0] == 't' || raw[0] == 'f' {
		return opt[int]{}, nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return opt[int]{}, fmt.Errorf("request body: field \"logprobs\": must be true, false or a count in [0, %d]", maxLogprobs)
	}
	return opt[int]{n, true}, nil
}

var errStop = errors.New("request body: field \"stop\": must be a string, a list of strings or null")

// stopCount reads stop: a string, a list of strings or null, and returns how many strings.
func stopCount(raw json.RawMessage) (int, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case isNull(raw):
		return 0, nil
	case raw[0] == '"':
		return 1, nil
	case raw[0] != '[':
		return 0, errStop
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return 0, errStop
	}
	for _, it := range items {
		if it = bytes.TrimSpace(it); len(it) == 0 || it[0] != '"' {
			return 0, errStop
		}
	}
	return len(items), nil
}

// toolsGiven reads tools, a list or null, and reports whether it offers any.
func toolsGiven(raw json.RawMessage) (bool, error) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return false, nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return false, errors.New("request body: field \"tools\": must be a list of tools or null")
	}
	return len(items) > 0, nil
}

// kind reads a response_format's type.
func (rf *wireResponseFormat) kind() (formatKind, error) {
	switch {
	case rf == nil:
		return formatNone, nil
	case rf.Type == nil:
		return formatNoType, nil // apply words it, as for the fast parser
	}
	k, ok := formatKinds[*rf.Type]
	if !ok {
		return 0, fmt.Errorf("request body: field \"response_format.type\": must be text, json_object, json_schema or structural_tag, got %q", *rf.Type)
	}
	return k, nil
}

// toolCallsOf is a message's tool_calls as given, nil for null, an empty list or nothing (no
// call to render). Any other shape is kept, for the ChatCounter to refuse by name.
func toolCallsOf(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || raw[0] == '[' && len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0 {
		return nil
	}
	return raw
}

// messageText joins the text parts of a message content: a string, null, or a list of parts of
// which only {"type":"text"} ones carry text.
func messageText(raw json.RawMessage) (string, error) { return joinText(raw, isTextPart) }

func isTextPart(typ string) bool { return typ == "text" }

// joinText joins the text of a content: a string, null, or a list of parts whose type text
// accepts (the others, images and files, carry no text the simulator counts), joined with
// nothing between them.
func joinText(raw json.RawMessage, text func(typ string) bool) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '[':
		var parts []wirePart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var b strings.Builder
		for _, p := range parts {
			if text(p.Type) {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	return "", errors.New("must be a string, null or a list of content parts")
}

// parsePrompt fills PromptText or PromptIDs. Batched prompts (several strings or id lists) are
// refused: a replay sends one prompt per request, and one sequence per request keeps the model
// simple.
func parsePrompt(raw json.RawMessage, r *Request) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return errors.New("missing")
	}
	if raw[0] == '"' {
		return json.Unmarshal(raw, &r.PromptText)
	}
	if raw[0] != '[' {
		return errors.New("must be a string, a list of strings or a list of token ids")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return err
	}
	if len(items) == 0 {
		return errors.New("empty list")
	}
	first := bytes.TrimSpace(items[0])
	if len(first) == 0 {
		return errors.New("empty element")
	}
	switch first[0] {
	case '"':
		if len(items) != 1 {
			return fmt.Errorf("batched prompts are not simulated (got %d strings)", len(items))
		}
		return json.Unmarshal(first, &r.PromptText)
	case '[':
		if len(items) != 1 {
			return fmt.Errorf("batched prompts are not simulated (got %d id lists)", len(items))
		}
		raw = first
	}
	var ids []int
	if err := json.Unmarshal(raw, &ids); err != nil {
		return fmt.Errorf("token ids: %w", err)
	}
	if err := checkIDs(ids); err != nil {
		return err
	}
	r.PromptIDs, r.HasIDs = ids, true
	return nil
}

// checkIDs refuses empty id lists and negative ids.
func checkIDs(ids []int) error {
	if len(ids) == 0 {
		return errors.New("empty token id list")
	}
	for i, id := range ids {
		if id < 0 {
			return fmt.Errorf("token id [%d] is negative: %d", i, id)
		}
	}
	return nil
}
