package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// wireMessages is an Anthropic Messages API request body (POST /v1/messages) as far as the
// simulator reads it (anthropic-sdk-python@009b035305e0724ce108ebd796935f91711fc6e1:
// src/anthropic/types/message_create_params.py). min_tokens and ignore_eos are vLLM's
// sampling extensions, read as chat reads them.
type wireMessages struct {
	Model         string               `json:"model"`
	MaxTokens     *int                 `json:"max_tokens"`
	Messages      []wireAnthropicMsg   `json:"messages"`
	System        json.RawMessage      `json:"system"`
	StopSequences []string             `json:"stop_sequences"`
	Stream        bool                 `json:"stream"`
	Temperature   *float64             `json:"temperature"`
	TopP          *float64             `json:"top_p"`
	TopK          *int                 `json:"top_k"`
	Tools         json.RawMessage      `json:"tools"`
	ToolChoice    json.RawMessage      `json:"tool_choice"`
	OutputConfig  *wireAnthropicOutput `json:"output_config"`
	MinTokens     *int                 `json:"min_tokens"`
	IgnoreEOS     bool                 `json:"ignore_eos"`
	Thinking      *int                 `json:"thinking_token_budget"`
}

// wireAnthropicOutput is output_config: its format is a structured output (output_config_param.py,
// json_output_format_param.py).
type wireAnthropicOutput struct {
	Format *struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	} `json:"format"`
}

type wireAnthropicMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// wireBlock is a content block as far as the simulator reads one (text, image, tool_use,
// tool_result; documents and thinking carry nothing it counts).
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Source    json.RawMessage `json:"source"`
}

// parseMessagesRequest decodes a Messages API body into the Request of the same conversation
// sent to chat, as vLLM converts it (vllm/entrypoints/anthropic/serving.py
// _convert_anthropic_to_openai_request): system (a string or text blocks, and the text of any
// message of role system) a leading system message; an assistant turn's text and tool_use
// blocks one message with chat's tool_calls (the input as its arguments' JSON text); each
// tool_result a tool message before what else its user turn says; tools in chat's shape
// (input_schema as parameters). max_tokens is required and caps the output, min_tokens and
// ignore_eos force it as for chat; stop_sequences are counted like stop, and never matched. A
// non-empty tools list (unless tool_choice is none) or an output_config.format constrains
// decoding; tool_choice any or naming a tool, or a json_schema format, gets a JSON answer as
// chat's does. thinking and top_k change nothing. Errors name the field at fault; unknown
// fields are ignored.
func parseMessagesRequest(body []byte, defaultMaxTokens int) (Request, error) {
	var w wireMessages
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, fmt.Errorf("request body: %w", err)
	}
	if w.MaxTokens == nil {
		return Request{}, errors.New("request body: field \"max_tokens\": missing (the Messages API requires it)")
	}
	r := Request{Chat: true, Model: w.Model, IgnoreEOS: w.IgnoreEOS, Stream: w.Stream}
	f := scalars{maxTokens: optOf(w.MaxTokens), minTokens: optOf(w.MinTokens), thinking: optOf(w.Thinking),
		temperature: optOf(w.Temperature), topP: optOf(w.TopP), stops: len(w.StopSequences)}
	var err error
	if r.Tools, err = anthropicTools(w.Tools); err != nil {
		return Request{}, err
	}
	var choice json.RawMessage
	if f.toolChoice, choice, err = anthropicToolChoice(w.ToolChoice); err != nil {
		return Request{}, err
	}
	f.tools = r.Tools != nil
	var schema json.RawMessage
	if f.format, schema, err = w.OutputConfig.format(); err != nil {
		return Request{}, err
	}
	if err := f.apply(defaultMaxTokens, &r); err != nil {
		return Request{}, err
	}
	if r.Messages, err = anthropicMessages(w.System, w.Messages); err != nil {
		return Request{}, err
	}
	if f.tools && f.toolChoice == toolChoiceForced {
		if r.Content, err = toolContent(r.Tools, choice, "tools[].input_schema"); r.Content != nil || err != nil {
			return r, err
		}
	}
	r.Content, err = formatContent(f.format, schema, "output_config.format.schema")
	return r, err
}

// format reads output_config.format: json_schema with its schema, or none.
func (o *wireAnthropicOutput) format() (formatKind, json.RawMessage, error) {
	if o == nil || o.Format == nil {
		return formatNone, nil, nil
	}
	if o.Format.Type != "json_schema" {
		return 0, nil, fmt.Errorf("request body: field \"output_config.format.type\": must be json_schema, got %q", o.Format.Type)
	}
	return formatJSONSchema, o.Format.Schema, nil
}

// wireAnthropicTool is a tools element (tool_param.py).
type wireAnthropicTool struct {
	Name        string          `json:"name"`
	Description json.RawMessage `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// anthropicTools is the request's tools in chat's shape, nil when it offers none.
func anthropicTools(raw json.RawMessage) (json.RawMessage, error) {
	items, err := objectList(raw)
	if err != nil {
		return nil, errors.New("request body: field \"tools\": must be a list of tools or null")
	}
	b := []byte{'['}
	for i, it := range items {
		var t wireAnthropicTool
		if err := json.Unmarshal(it, &t); err != nil {
			return nil, fmt.Errorf("request body: field \"tools[%d]\": %w", i, err)
		}
		if t.Name == "" {
			return nil, fmt.Errorf("request body: field \"tools[%d].name\": missing", i)
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		if b, err = appendChatTool(b, t.Name, t.Description, t.InputSchema); err != nil {
			return nil, fmt.Errorf("request body: field \"tools[%d]\": %w", i, err)
		}
	}
	return finishTools(b), nil
}

// anthropicToolChoice reads tool_choice (tool_choice_param.py): auto, any (a call of some
// tool, chat's "required"), tool (a call of the one named) or none; with chat's form of a
// choice that forces a call.
func anthropicToolChoice(raw json.RawMessage) (toolChoiceKind, json.RawMessage, error) {
	if isNull(raw) {
		return toolChoiceAuto, nil, nil
	}
	var c struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return 0, nil, fmt.Errorf("request body: field \"tool_choice\": %w", err)
	}
	switch c.Type {
	case "auto":
		return toolChoiceAuto, nil, nil
	case "none":
		return toolChoiceNone, nil, nil
	case "any":
		return toolChoiceForced, json.RawMessage(`"required"`), nil
	case "tool":
		return toolChoiceForced, namedChoice(c.Name), nil
	}
	return 0, nil, fmt.Errorf("request body: field \"tool_choice.type\": must be auto, any, tool or none, got %q", c.Type)
}

var errNoAnthropicMessages = errors.New("request body: field \"messages\": missing or empty")

// anthropicMessages is the conversation of system and msgs in chat's form.
func anthropicMessages(systemRaw json.RawMessage, msgs []wireAnthropicMsg) ([]Message, error) {
	if len(msgs) == 0 {
		return nil, errNoAnthropicMessages
	}
	system, err := joinText(systemRaw, isTextPart)
	if err != nil {
		return nil, fmt.Errorf("request body: field \"system\": %w", err)
	}
	var sys strings.Builder
	sys.WriteString(system)
	turns := make([]chatTurn, 1, len(msgs)+1) // turns[0] is the system turn, dropped if empty
	for i, m := range msgs {
		if turns, err = addAnthropicMessage(turns, m, &sys); err != nil {
			return nil, fmt.Errorf("request body: field \"messages[%d]\": %w", i, err)
		}
	}
	if sys.Len() == 0 {
		turns = turns[1:]
	} else {
		turns[0].Message = Message{Role: "system", Content: sys.String()}
	}
	if len(turns) == 0 {
		return nil, errNoAnthropicMessages
	}
	return chatMessages(turns)
}

// addAnthropicMessage adds one message to the conversation; a system message's text joins the
// system prompt instead.
func addAnthropicMessage(turns []chatTurn, m wireAnthropicMsg, sys *strings.Builder) ([]chatTurn, error) {
	if m.Role != "user" && m.Role != "assistant" && m.Role != "system" {
		return nil, fmt.Errorf("field \"role\": must be user or assistant, got %q", m.Role)
	}
	raw := bytes.TrimSpace(m.Content)
	if len(raw) == 0 || raw[0] != '[' {
		text, err := joinText(raw, isTextPart)
		if err != nil {
			return nil, fmt.Errorf("field \"content\": %w", err)
		}
		if m.Role == "system" {
			sys.WriteString(text)
			return turns, nil
		}
		return append(turns, chatTurn{Message: Message{Role: m.Role, Content: text}}), nil
	}
	var blocks []wireBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("field \"content\": %w", err)
	}
	return addBlocks(turns, m.Role, blocks, sys)
}

// addBlocks adds a message given as content blocks: its tool results as tool messages, then
// the message itself with its text and calls, when it has any (a user turn of tool results
// alone is only those).
func addBlocks(turns []chatTurn, role string, blocks []wireBlock, sys *strings.Builder) ([]chatTurn, error) {
	t := chatTurn{Message: Message{Role: role}}
	var text strings.Builder
	hasText := false
	for i, bl := range blocks {
		switch {
		case bl.Type == "text":
			text.WriteString(bl.Text)
			hasText = true
		case bl.Type == "tool_use" && role == "assistant":
			args, err := compactJSON(bl.Input)
			if err != nil {
				return nil, fmt.Errorf("field \"content[%d].input\": %w", i, err)
			}
			if args == nil {
				args = json.RawMessage("{}")
			}
			t.calls = append(t.calls, newChatCall(bl.ID, bl.Name, string(args)))
		case bl.Type == "image": // apiimages.go
			img, err := blockImage(bl.Source)
			if err != nil {
				return nil, fmt.Errorf("field \"content[%d]\": %w", i, err)
			}
			t.Images = append(t.Images, img)
		case bl.Type == "tool_result" && role == "user":
			out, err := joinText(bl.Content, isTextPart)
			if err != nil {
				return nil, fmt.Errorf("field \"content[%d].content\": %w", i, err)
			}
			turns = append(turns, chatTurn{Message: Message{Role: "tool", Content: out, ToolCallID: bl.ToolUseID}})
		}
	}
	switch {
	case role == "system":
		sys.WriteString(text.String())
		return turns, nil
	case role == "user" && !hasText && t.Images == nil:
		return turns, nil
	}
	t.Content = text.String()
	return append(turns, t), nil
}
