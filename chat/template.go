package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// DefaultTemplate is used when tokenizer_config.json has no chat_template (Mistral-7B's does
// not). It is our own rendering of the Mistral-Instruct v1 prompt format from the model card,
// "<s>[INST] user [/INST] answer</s>[INST] user [/INST]" (the answer after a space, as the model
// generates it); a server with another template should be calibrated (synth's
// Builder.SetChatOverhead).
const DefaultTemplate = `{{ bos_token }}{% for message in messages %}` +
	`{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}` +
	`{% elif message['role'] == 'assistant' %}{{ ' ' + message['content'] + eos_token }}` +
	`{% else %}{{ raise_exception('only user and assistant roles are supported') }}{% endif %}` +
	`{% endfor %}`

// Message is one chat message of a request: what the chat API sends, what request logs hold
// and what templates render.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are an assistant turn's calls; ToolCallID and Name identify a tool turn's
	// answer. Chat templates render them, so they count toward the prompt.
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	// Reasoning is an assistant turn's thinking sent back with it (Anthropic's thinking
	// blocks, a Responses reasoning item), which engines hand templates as reasoning_content.
	Reasoning string `json:"reasoning_content,omitempty"`
	// Parts, when set, is the content as a list of parts (text, images and audio clips) to send
	// in place of Content, which is then their text parts one after the other: what the
	// template renders (media render no text; their tokens are counted apart, package media).
	Parts []Part `json:"-"`
}

// The types of content parts.
const (
	PartText  = "text"
	PartImage = "image_url"
	PartAudio = "input_audio"
)

// Part is one part of a message's content as chat's API sends it: text, an image by URL (a
// data URL) with its detail ("" for none), or an audio clip as base64 data in a format ("wav",
// "mp3").
type Part struct {
	Type        string
	Text        string
	ImageURL    string
	Detail      string
	AudioData   string
	AudioFormat string
}

// ToolCall is one function call of an assistant turn, as OpenAI's API shapes it.
type ToolCall struct {
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as the JSON text the model wrote.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Renderer renders a Hugging Face chat template the way transformers' apply_chat_template
// does: trim_blocks and lstrip_blocks on, add_generation_prompt, bos_token/eos_token, the
// helpers templates call (raise_exception, strftime_now) that plain Jinja lacks, and
// transformers' tojson (see pyJSON) with dict methods that keep a JSON object's key order. It gives the
// prompt text a server builds from a chat request: synth sizes chat prompts with it, request
// logs are counted with it, and the simulator counts as a server would. It is safe for
// concurrent use.
type Renderer struct {
	// tpls holds parsed copies of the template, one per concurrent render: gonja templates
	// are not documented as safe for concurrent use, and one behind a lock made rendering the
	// serial part of reading request logs on all cores. Each copy costs one parse.
	tpls sync.Pool // *exec.Template
	vars map[string]any
}

// parenConditional matches "(a if c else b)" with no parentheses inside.
var parenConditional = regexp.MustCompile(`\(([^()]*?) if ([^()]*?) else ([^()]*?)\)`)

// chatDate is the date strftime_now renders: a fixed day, not the wall clock, so prompts stay
// byte-identical between runs (dates like "26 Jul 2024" have the same token count as today's).
var chatDate = time.Date(2024, time.July, 26, 0, 0, 0, 0, time.UTC)

// parseChatTemplate parses a chat template with the settings transformers renders them with.
func parseChatTemplate(source string) (*exec.Template, error) {
	return parseTemplate(source, chatControls)
}

// parseTemplate parses a chat template whose control structures are those of controls.
func parseTemplate(source string, controls *exec.ControlStructureSet) (tpl *exec.Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			tpl, err = nil, fmt.Errorf("chat: parsing the chat template: the template engine failed: %v", p)
		}
	}()
	cfg := config.New()
	cfg.TrimBlocks = true
	cfg.LeftStripBlocks = true
	cfg.KeepTrailingNewline = false
	loader, err := loaders.NewFileSystemLoader("")
	if err != nil {
		return nil, err
	}
	root := "chat_template"
	shifted, err := loaders.NewShiftedLoader(root, strings.NewReader(source), loader)
	if err != nil {
		return nil, err
	}
	env := &exec.Environment{
		Context:           gonja.DefaultContext,
		Filters:           chatFilters,
		Tests:             builtins.Tests,
		ControlStructures: controls,
		Methods:           chatMethods,
	}
	tpl, err = exec.NewTemplate(root, cfg, shifted, env)
	if err != nil {
		// gonja cannot parse a parenthesized conditional expression; rewrite those into a
		// helper call and try once more (both branches are then evaluated, which is harmless
		// for the plain values templates put there).
		if alt := parenConditional.ReplaceAllString(source, "replay_iif($2, $1, $3)"); alt != source {
			if shifted, err2 := loaders.NewShiftedLoader(root, strings.NewReader(alt), loader); err2 == nil {
				if t2, err2 := exec.NewTemplate(root, cfg, shifted, env); err2 == nil {
					tpl, err = t2, nil
				}
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("chat: parsing the chat template (the gonja engine cannot parse all of Jinja): %w", err)
	}
	return tpl, nil
}

// NewRenderer parses t.Source (DefaultTemplate when empty) to render with t.BOS and t.EOS.
func NewRenderer(t Template) (*Renderer, error) {
	source := t.Source
	if source == "" {
		source = DefaultTemplate
	}
	tpl, err := parseChatTemplate(source)
	if err != nil {
		return nil, err
	}
	c := &Renderer{vars: map[string]any{
		"bos_token":             t.BOS,
		"eos_token":             t.EOS,
		"add_generation_prompt": true,
		// raise_exception is set for each render (render), which keeps what it said.
		"strftime_now": func(format string) string { return strftime(chatDate, format) },
		"replay_iif": func(cond bool, a, b any) any {
			if cond {
				return a
			}
			return b
		},
	}}
	c.tpls.New = func() any {
		t, err := parseChatTemplate(source)
		if err != nil { // it parsed once, so this is not expected; Render reports it
			return err
		}
		return t
	}
	c.tpls.Put(tpl)
	return c, nil
}

// Render returns the prompt text a server builds from msgs, generation prompt included: it is
// RenderTools with no tools.
func (c *Renderer) Render(msgs []Message) (string, error) { return c.RenderTools(msgs, nil) }

// RenderTools returns the prompt text a server builds from msgs and the request's tools (its
// `tools` JSON array, nil or empty when it offered none), generation prompt included, as
// transformers' apply_chat_template(messages, tools=...) renders them: tool definitions and
// earlier turns' tool calls and answers count toward the prompt. Encode it with special tokens
// recognized and none added (tokenizer Encode(text, false)): the template already holds the
// BOS text.
func (c *Renderer) RenderTools(msgs []Message, tools json.RawMessage) (string, error) {
	prompt, raised, err := c.render(msgs, tools)
	if err != nil && raised != "" { // the template's own refusal: say which message, not the trace
		return "", c.refusal(msgs, tools, raised)
	}
	return prompt, err
}

// render is RenderTools without the search for the refused message: raised is the text the
// template passed to raise_exception, "" when it did not call it.
func (c *Renderer) render(msgs []Message, tools json.RawMessage) (prompt, raised string, err error) {
	d, err := buildData(msgs, tools)
	if err != nil {
		return "", "", err
	}
	data := make(map[string]any, len(c.vars)+2)
	for k, v := range c.vars {
		data[k] = v
	}
	data["raise_exception"] = func(msg string) (string, error) {
		raised = msg
		return "", errors.New("template raised: " + msg)
	}
	data["messages"] = d.messages
	if d.tools != nil {
		data["tools"] = d.tools
	}
	v := c.tpls.Get()
	tpl, ok := v.(*exec.Template)
	if !ok {
		return "", "", fmt.Errorf("chat: parsing the chat template again: %v", v)
	}
	// Into a builder sized for the messages and the markup around them: the prompt is not
	// copied as it grows, nor once more at the end as ExecuteToString's buffer would be.
	var out strings.Builder
	out.Grow(d.size)
	// gonja panics on some expressions (`{{ 0 % 0 }}`); a template is input, so that is an
	// error here. The copy that panicked is not reused.
	defer func() {
		if p := recover(); p != nil {
			prompt, err = "", fmt.Errorf("chat: rendering the chat template: the template engine failed: %v", p)
		}
	}()
	err = tpl.Execute(&out, exec.NewContext(data))
	c.tpls.Put(tpl)
	if err != nil {
		return "", raised, fmt.Errorf("chat: rendering the chat template: %w", err)
	}
	return out.String(), "", nil
}

// tplMessage is a message as templates see it: a map, with an attribute getter so that
// message.role finds the key directly; without it gonja looks for a method of that name by
// reflection first, on every attribute a template reads.
type tplMessage map[string]any

// GetAttribute implements exec.AttributeGetter. A missing key reports not found, as gonja
// itself does for a map, so gonja goes on to item lookup and undefined handling as before.
func (m tplMessage) GetAttribute(name string) (*exec.Value, bool) {
	v, ok := m[name]
	if !ok {
		return exec.AsValue(nil), false
	}
	return exec.AsValue(v), true
}

// strftime implements the directives chat templates use with strftime_now.
func strftime(t time.Time, format string) string {
	var sb strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			sb.WriteByte(format[i])
			continue
		}
		i++
		switch format[i] {
		case 'd':
			sb.WriteString(t.Format("02"))
		case 'm':
			sb.WriteString(t.Format("01"))
		case 'Y':
			sb.WriteString(t.Format("2006"))
		case 'y':
			sb.WriteString(t.Format("06"))
		case 'b':
			sb.WriteString(t.Format("Jan"))
		case 'B':
			sb.WriteString(t.Format("January"))
		case 'a':
			sb.WriteString(t.Format("Mon"))
		case 'A':
			sb.WriteString(t.Format("Monday"))
		case 'H':
			sb.WriteString(t.Format("15"))
		case 'M':
			sb.WriteString(t.Format("04"))
		case 'S':
			sb.WriteString(t.Format("05"))
		case 'j':
			fmt.Fprintf(&sb, "%03d", t.YearDay())
		case '%':
			sb.WriteByte('%')
		default:
			sb.WriteByte('%')
			sb.WriteByte(format[i])
		}
	}
	return sb.String()
}
