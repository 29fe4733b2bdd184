package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llm-replay/replay/chat"
)

// Request is what to send. Chat, responses and messages use Messages (or, when there are
// none, Prompt as a single user message); completions uses PromptIDs when non-nil (token
// ids, so the server sees exactly the tokens the caller built), else Prompt; embeddings use
// Inputs or InputIDs (else Prompt or PromptIDs as the one input).
type Request struct {
	Prompt    string
	PromptIDs []int
	Messages  []chat.Message
	// Inputs (text) or InputIDs (token ids) are an embeddings request's batch, in order; a
	// batch of one is sent as a bare string (or one id array) unless InputList says the log
	// had an array. The answer must hold one embedding per input.
	Inputs    []string
	InputIDs  [][]int
	InputList bool
	// MaxTokens is sent as max_tokens (or the field Options names on chat and completions;
	// max_output_tokens on the Responses API; never on embeddings); 0 leaves it to the
	// server. When it is above 0 the answer must hold content, and an answer that ended at
	// its cap short of it is ErrShort.
	MaxTokens int
	// ID, when non-empty, is sent as the X-Request-Id header: servers and gateways log it, so
	// their logs join the result rows. A value with control bytes fails as ErrClient.
	ID string
	// Trace, when not zero, is sent as the traceparent header (W3C Trace Context), so the
	// server's spans of this request join the sender's trace.
	Trace TraceParent
	// Options are the request's own body fields (sampling, stop, tools, structured output,
	// n, non-streaming); nil sends none of them, streamed.
	Options *Options
	// Unforced leaves Config.ExtraBody's ForcingKeys out of this request.
	Unforced bool
	// ThinkingBudget is the logged thinking part of the output (0: none logged), sent as
	// Config.ThinkingBudgetField on a forced chat, Responses or Messages request.
	ThinkingBudget int
	// Priority is the request's scheduling priority (--priority-map), sent as
	// Config.PriorityField; nil sends none.
	Priority *int
	// Body, when set, is sent as it is but for its "model", replaced by Config.Model
	// (--body verbatim); the other fields above but ID are then unused, and whether the
	// answer streams and carries usage is the body's own say.
	Body []byte
	// API, when set, is the API this request goes to (one of the API constants): its path,
	// its body's encoder (or, for a verbatim body, how it is read) and how its answer is
	// read and judged; "" is Config.API.
	API string
	// Encoded, when set, is this request's body as Encode built it ahead of the send; the
	// body fields above are then not encoded again (ID, API and Headers still apply).
	Encoded *Encoded
	// Model, when set, is sent as "model" instead of Config.Model: the served model a
	// --model-map gives the request's logged model.
	Model string
	// Adapter, when set, is the LoRA adapter on Model that serves the request, sent as
	// Config.AdapterField says: by default as "model" in Model's place (vLLM's way).
	Adapter string
	// Headers are sent as they are, after the client's own: the logged routing headers and
	// the session's affinity header. The caller keeps credentials out of them.
	Headers []Header
}

// Header is one request header, name and value.
type Header struct{ Name, Value string }

// modelOf is the model name r is sent with.
func (c *Client) modelOf(r Request) string {
	if r.Adapter != "" && c.adapterField == "" {
		return r.Adapter
	}
	if r.Model != "" {
		return r.Model
	}
	return c.model
}

// Encoded is a request body built ahead of its send, with the API it goes to and what its
// answer is judged by.
type Encoded struct {
	body      []byte
	api       apiKind
	maxTokens int
	inputs    int
	wantUsage bool
	streamed  bool
}

// Encode builds req's body now, so that its send at the due time has only to write it:
// encoding a prompt of a few thousand tokens takes tens to hundreds of microseconds, which
// would otherwise be send lateness. The result is immutable and may be sent more than once
// (retries).
func (c *Client) Encode(req Request) (*Encoded, error) {
	var k call
	body, err := c.prepare(&k, req)
	if err != nil {
		return nil, err
	}
	return &Encoded{body: body, api: k.api, maxTokens: k.maxTokens, inputs: k.inputs, wantUsage: k.wantUsage, streamed: k.streamed}, nil
}

// API is the API the encoded body goes to.
func (e *Encoded) API() string { return e.api.String() }

// Size is the encoded body's length in bytes.
func (e *Encoded) Size() int { return len(e.body) }

// chatRequest is go-openai's request with the messages encoded by a plain struct: go-openai's
// ChatCompletionMessage.MarshalJSON marshals each message on its own and encoding/json then
// re-scans that output byte by byte, which cost ~25 µs per KB of prompt (BenchmarkRequest).
// The shallower Messages field shadows the embedded one; chat.Message is the text-only shape
// of openai.ChatCompletionMessage, and encodes as plain struct fields.
type chatRequest struct {
	openai.ChatCompletionRequest
	Messages []chat.Message `json:"messages"`
}

// body builds r's JSON body for api: chat and completions with go-openai's request types
// (go-openai's own stream calls are not used to send: they reject token-id prompts and some
// model names on completions) and the request's raw option fields, the other APIs with their
// own encoders (api_*.go); then the logged body's other members (Options.Fields) and
// ExtraBody.
func (c *Client) body(r Request, api apiKind) ([]byte, error) {
	var (
		b   []byte
		err error
	)
	switch api {
	case kindChat, kindCompletions:
		b, err = c.openaiBody(r, api)
	case kindResponses:
		b, err = c.responsesBody(r)
	case kindMessages:
		b, err = c.messagesBody(r)
	default:
		b, err = c.embeddingsBody(r)
	}
	if err != nil {
		return nil, err
	}
	b, keys, err := r.Options.addFields(b, api)
	if err != nil {
		return nil, err
	}
	if b, err = c.addExtra(b, r.Unforced || api == kindEmbeddings, keys); err != nil {
		return nil, err
	}
	b = c.addThinkingBudget(b, r, api, keys)
	return c.addAdapter(c.addPriority(b, r, api, keys), r, keys)
}

// addPriority splices the request's priority into its body as Config.PriorityField, unless
// the logged body holds that field (the log's own priority wins) or ExtraBody sets it.
func (c *Client) addPriority(b []byte, r Request, api apiKind, fieldKeys []string) []byte {
	if r.Priority == nil || api == kindEmbeddings {
		return b
	}
	return c.spliceInt(b, c.priorityField, int64(*r.Priority), fieldKeys)
}

// addThinkingBudget splices the request's thinking budget into a forced body (see
// Config.ThinkingBudgetField); a completions or embeddings body has no thinking to bound.
func (c *Client) addThinkingBudget(b []byte, r Request, api apiKind, fieldKeys []string) []byte {
	if r.ThinkingBudget <= 0 || r.Unforced || api == kindCompletions || api == kindEmbeddings {
		return b
	}
	return c.spliceInt(b, c.thinkingField, int64(r.ThinkingBudget), fieldKeys)
}

// spliceInt appends "field": v to a JSON object body, unless field is "" or the body already
// holds it: among the logged body's members (fieldKeys) or ExtraBody's.
func (c *Client) spliceInt(b []byte, field string, v int64, fieldKeys []string) []byte {
	if field == "" || slices.Contains(fieldKeys, field) || len(b) < 2 || b[len(b)-1] != '}' {
		return b
	}
	if _, set := c.extra.raw[field]; set {
		return b
	}
	b = append(b[:len(b)-1], ',', '"')
	b = append(b, field...)
	b = append(b, '"', ':')
	b = strconv.AppendInt(b, v, 10)
	return append(b, '}')
}

// openaiBody is r's chat or completions body, before Fields and ExtraBody.
func (c *Client) openaiBody(r Request, api apiKind) ([]byte, error) {
	streamed := r.Options.streamed()
	var usage *openai.StreamOptions
	if streamed {
		usage = c.usage // stream_options is only valid with stream
	}
	var v any
	if api == kindChat {
		cb := c.chatBody(r, streamed, usage)
		v = cb
		if hasParts(cb.Messages) {
			v = withParts(cb)
		}
	} else {
		v = c.completionsBody(r, streamed, usage)
	}
	raw, err := r.Options.rawFields(api == kindChat, r.MaxTokens)
	if err != nil {
		return nil, err
	}
	b, err := marshalSized(v, c.bodySize(r, api)+len(raw))
	if err != nil {
		return nil, fmt.Errorf("client: encoding request: %w", err)
	}
	return spliceFields(b, raw)
}

// chatBody is the chat request for r.
func (c *Client) chatBody(r Request, streamed bool, usage *openai.StreamOptions) chatRequest {
	msgs := r.Messages
	if len(msgs) == 0 {
		msgs = []chat.Message{{Role: openai.ChatMessageRoleUser, Content: r.Prompt}}
	}
	req := chatRequest{
		ChatCompletionRequest: openai.ChatCompletionRequest{
			Model: c.modelOf(r),
			//lint:ignore SA1019 vLLM, SGLang and Ollama read max_tokens; max_completion_tokens is not universal.
			MaxTokens:     r.MaxTokens,
			Stream:        streamed,
			StreamOptions: usage,
		},
		Messages: msgs,
	}
	r.Options.applyChat(&req.ChatCompletionRequest)
	return req
}

// completionsBody is the completions request for r.
func (c *Client) completionsBody(r Request, streamed bool, usage *openai.StreamOptions) openai.CompletionRequest {
	var prompt any = r.Prompt
	if r.PromptIDs != nil {
		prompt = r.PromptIDs
	}
	req := openai.CompletionRequest{
		Model:         c.modelOf(r),
		Prompt:        prompt,
		MaxTokens:     r.MaxTokens,
		Stream:        streamed,
		StreamOptions: usage,
	}
	r.Options.applyCompletions(&req)
	return req
}

// bodySize estimates the body's bytes, so its buffer is sized once: the prompt dominates the
// body and regrowing it cost ~15% of a request's CPU. Token ids take up to 7 bytes each.
func (c *Client) bodySize(r Request, api apiKind) int {
	size := 256 + len(c.extra.suffix) + len(r.fields())
	switch {
	case api != kindCompletions && api != kindEmbeddings && len(r.Messages) > 0:
		for _, m := range r.Messages {
			size += 32 + len(m.Content) + partsSize(m)
		}
	case api == kindCompletions && r.PromptIDs != nil:
		size += 7 * len(r.PromptIDs)
	default:
		size += len(r.Prompt)
	}
	return size
}

// fields is the request's Options.Fields, for sizing its body.
func (r *Request) fields() json.RawMessage {
	if r.Options == nil {
		return nil
	}
	return r.Options.Fields
}

// addExtra merges Config.ExtraBody into a body object: without its ForcingKeys when unforced;
// fieldKeys are the keys the body took from Options.Fields.
func (c *Client) addExtra(b []byte, unforced bool, fieldKeys []string) ([]byte, error) {
	if unforced {
		return c.unforced.add(b, fieldKeys)
	}
	return c.extra.add(b, fieldKeys)
}

// marshal encodes v without HTML escaping (prompts are full of < and &; escaping them would
// only inflate the body) and without the encoder's trailing newline.
func marshal(v any) ([]byte, error) { return marshalSized(v, 64) }

func marshalSized(v any, size int) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
