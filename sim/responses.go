package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// wireResponses is a Responses API request body (POST /v1/responses) as far as the simulator
// reads it (openai-python@e43b422412a9e96c9cc5192c61fffbe2d7e04836:
// src/openai/types/responses/response_create_params.py). min_tokens and ignore_eos are vLLM's
// sampling extensions, read as chat reads them, so a replay can force the output's length.
type wireResponses struct {
	Model           string          `json:"model"`
	Input           json.RawMessage `json:"input"`
	Instructions    *string         `json:"instructions"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	MinTokens       *int            `json:"min_tokens"`
	IgnoreEOS       bool            `json:"ignore_eos"`
	ThinkingBudget  *int            `json:"thinking_token_budget"`
	Stream          bool            `json:"stream"`
	Temperature     *float64        `json:"temperature"`
	TopP            *float64        `json:"top_p"`
	TopLogprobs     *int            `json:"top_logprobs"`
	Tools           json.RawMessage `json:"tools"`
	ToolChoice      json.RawMessage `json:"tool_choice"`
	Text            *struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
}

// responsesEcho is what a response object repeats of its request (openai-python's
// types/responses/response.py: instructions, max_output_tokens, temperature, tool_choice,
// tools, top_p).
type responsesEcho struct {
	instructions      *string
	maxOutput         opt[int]
	temperature, topP opt[float64]
	// tools and toolChoice are the request's own, compact; nil when it gave none.
	tools, toolChoice json.RawMessage
}

// parseResponsesRequest decodes a Responses API body into the Request of the same conversation
// sent to chat: instructions a leading system message, input a string (one user message) or a
// list of items (messages, function_call as an assistant turn's tool call, merged into the
// assistant turn before it as vLLM merges them, function_call_output as a tool message; other
// items, reasoning among them, carry nothing the simulator renders), function tools in chat's
// shape. max_output_tokens caps the output (the configured default when absent), min_tokens and
// ignore_eos force it as for chat; a non-empty tools list (unless tool_choice is "none") or a
// text.format of json_object or json_schema constrains decoding, and tool_choice "required" or
// naming a function, or a json_schema format, gets a JSON answer as chat's does. Errors name the
// field at fault; unknown fields are ignored, previous_response_id among them (the simulator
// keeps no responses: a replay sends a chain's whole input).
func parseResponsesRequest(body []byte, defaultMaxTokens int) (Request, error) {
	var w wireResponses
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, fmt.Errorf("request body: %w", err)
	}
	r := Request{Chat: true, Model: w.Model, IgnoreEOS: w.IgnoreEOS, Stream: w.Stream}
	f := scalars{maxTokens: optOf(w.MaxOutputTokens), capName: "max_output_tokens", minTokens: optOf(w.MinTokens), thinking: optOf(w.ThinkingBudget),
		temperature: optOf(w.Temperature), topP: optOf(w.TopP), topLogprobs: optOf(w.TopLogprobs)}
	var err error
	if r.Tools, err = responsesTools(w.Tools); err != nil {
		return Request{}, err
	}
	var choice json.RawMessage
	if f.toolChoice, choice, err = responsesToolChoice(w.ToolChoice); err != nil {
		return Request{}, err
	}
	f.tools = r.Tools != nil
	var schema json.RawMessage
	if w.Text != nil {
		if f.format, schema, err = responsesFormat(w.Text.Format); err != nil {
			return Request{}, err
		}
	}
	if err := f.apply(defaultMaxTokens, &r); err != nil {
		return Request{}, err
	}
	if r.Messages, err = responsesMessages(w.Instructions, w.Input); err != nil {
		return Request{}, err
	}
	if r.Content, err = responsesContent(&f, r.Tools, choice, schema); err != nil {
		return Request{}, err
	}
	r.echo, err = w.echo()
	return r, err
}

// echo is what the response object repeats of w.
func (w *wireResponses) echo() (*responsesEcho, error) {
	e := &responsesEcho{instructions: w.Instructions, maxOutput: optOf(w.MaxOutputTokens),
		temperature: optOf(w.Temperature), topP: optOf(w.TopP)}
	var err error
	if e.tools, err = compactJSON(w.Tools); err != nil {
		return nil, fmt.Errorf("request body: field \"tools\": %w", err)
	}
	if e.toolChoice, err = compactJSON(w.ToolChoice); err != nil {
		return nil, fmt.Errorf("request body: field \"tool_choice\": %w", err)
	}
	return e, nil
}

// wireResponsesTool is a tools element as far as a function tool needs it (function_tool.py).
type wireResponsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description json.RawMessage `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// responsesTools is the request's function tools in chat's shape (the flat {"type":
// "function","name",...} of the Responses API nested as chat's function), nil when it offers
// none; other tools (web search, file search, MCP) run on OpenAI's side and are not rendered.
func responsesTools(raw json.RawMessage) (json.RawMessage, error) {
	items, err := objectList(raw)
	if err != nil {
		return nil, errors.New("request body: field \"tools\": must be a list of tools or null")
	}
	b := []byte{'['}
	for i, it := range items {
		var t wireResponsesTool
		if err := json.Unmarshal(it, &t); err != nil {
			return nil, fmt.Errorf("request body: field \"tools[%d]\": %w", i, err)
		}
		if t.Type != "function" {
			continue
		}
		if t.Name == "" {
			return nil, fmt.Errorf("request body: field \"tools[%d].name\": missing", i)
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		if b, err = appendChatTool(b, t.Name, t.Description, t.Parameters); err != nil {
			return nil, fmt.Errorf("request body: field \"tools[%d]\": %w", i, err)
		}
	}
	return finishTools(b), nil
}

var errResponsesToolChoice = errors.New(`request body: field "tool_choice": must be "none", "auto", "required" or an object such as {"type":"function","name":...}`)

// responsesToolChoice reads tool_choice: its kind, and when it forces a call the same choice
// in chat's shape (for toolContent). An object naming no function (allowed tools, a hosted
// tool) lets the model choose, as auto does.
func responsesToolChoice(raw json.RawMessage) (toolChoiceKind, json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return toolChoiceAuto, nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, nil, errResponsesToolChoice
		}
		switch s {
		case "none":
			return toolChoiceNone, nil, nil
		case "auto":
			return toolChoiceAuto, nil, nil
		case "required":
			return toolChoiceForced, json.RawMessage(`"required"`), nil
		}
	case '{':
		var c struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &c) != nil {
			return 0, nil, errResponsesToolChoice
		}
		if c.Type != "function" {
			return toolChoiceAuto, nil, nil
		}
		return toolChoiceForced, namedChoice(c.Name), nil
	}
	return 0, nil, errResponsesToolChoice
}

// namedChoice is chat's tool_choice naming a function.
func namedChoice(name string) json.RawMessage {
	b := appendJSONString([]byte(`{"type":"function","function":{"name":`), name)
	return append(b, "}}"...)
}

// responsesFormats maps text.format types to kinds (response_text_config.py).
var responsesFormats = map[string]formatKind{"text": formatText, "json_object": formatJSONObject, "json_schema": formatJSONSchema}

// responsesFormat reads text.format: its kind and, for json_schema, its schema.
func responsesFormat(raw json.RawMessage) (formatKind, json.RawMessage, error) {
	if isNull(raw) {
		return formatNone, nil, nil
	}
	var f struct {
		Type   *string         `json:"type"`
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, nil, fmt.Errorf("request body: field \"text.format\": %w", err)
	}
	if f.Type == nil {
		return 0, nil, errors.New("request body: field \"text.format.type\": missing")
	}
	k, ok := responsesFormats[*f.Type]
	if !ok {
		return 0, nil, fmt.Errorf("request body: field \"text.format.type\": must be text, json_object or json_schema, got %q", *f.Type)
	}
	return k, f.Schema, nil
}

// responsesContent is the JSON answer a request asks for, nil for the filler: a forced call of
// one of its tools first, else an instance of its json_schema format ("{}" for json_object).
func responsesContent(f *scalars, tools, choice, schema json.RawMessage) (*Content, error) {
	if f.tools && f.toolChoice == toolChoiceForced {
		if c, err := toolContent(tools, choice, "tools[].parameters"); c != nil || err != nil {
			return c, err
		}
	}
	return formatContent(f.format, schema, "text.format.schema")
}

// formatContent is the content a structured-output format asks for: an instance of schema for
// json_schema ("{}" when it has none), "{}" for json_object, nil otherwise. field names the
// schema in errors.
func formatContent(k formatKind, schema json.RawMessage, field string) (*Content, error) {
	switch {
	case k == formatJSONObject, k == formatJSONSchema && isNull(schema):
		return jsonObjectContent, nil
	case k != formatJSONSchema:
		return nil, nil
	}
	text, err := instance(schema)
	if err != nil {
		return nil, fmt.Errorf("request body: field %q: %w", field, err)
	}
	return &Content{Text: text}, nil
}

var errNoInput = errors.New("request body: field \"input\": missing or empty")

// responsesMessages is the conversation of instructions and input in chat's form.
func responsesMessages(instructions *string, input json.RawMessage) ([]Message, error) {
	var turns []chatTurn
	if instructions != nil && *instructions != "" {
		turns = append(turns, chatTurn{Message: Message{Role: "system", Content: *instructions}})
	}
	raw := bytes.TrimSpace(input)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("request body: field \"input\": %w", err)
		}
		turns = append(turns, chatTurn{Message: Message{Role: "user", Content: s}})
	case len(raw) > 0 && raw[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("request body: field \"input\": %w", err)
		}
		if len(items) == 0 {
			return nil, errNoInput
		}
		for i, it := range items {
			var err error
			if turns, err = addResponsesItem(turns, it); err != nil {
				return nil, fmt.Errorf("request body: field \"input[%d]\": %w", i, err)
			}
		}
	case isNull(raw):
		return nil, errNoInput
	default:
		return nil, errors.New("request body: field \"input\": must be a string or a list of items")
	}
	if len(turns) == 0 {
		return nil, errNoInput
	}
	return chatMessages(turns)
}

// wireItem is an input item as far as the simulator reads one (response_input_item_param.py:
// EasyInputMessage, ResponseFunctionToolCall, FunctionCallOutput).
type wireItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// isResponsesText reports the content parts that carry text: input_text, an assistant turn's
// output_text, and chat's text.
func isResponsesText(typ string) bool {
	return typ == "input_text" || typ == "output_text" || typ == "text"
}

// addResponsesItem adds one input item to the conversation.
func addResponsesItem(turns []chatTurn, raw json.RawMessage) ([]chatTurn, error) {
	var it wireItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, err
	}
	last := lastAssistant(turns)
	switch it.Type {
	case "", "message":
		if it.Role == "" {
			return nil, errors.New("field \"role\": missing")
		}
		text, imgs, err := inputContent(it.Content) // apiimages.go
		if err != nil {
			return nil, fmt.Errorf("field \"content\": %w", err)
		}
		if it.Role == "assistant" && last != nil && len(last.calls) > 0 && last.Content == "" && imgs == nil {
			last.Content = text // the calls' turn says this too, as vLLM merges them
			return turns, nil
		}
		return append(turns, chatTurn{Message: Message{Role: it.Role, Content: text, Images: imgs}}), nil
	case "function_call":
		call := newChatCall(it.CallID, it.Name, it.Arguments)
		if last != nil {
			last.calls = append(last.calls, call)
			return turns, nil
		}
		return append(turns, chatTurn{Message: Message{Role: "assistant"}, calls: []chatCall{call}}), nil
	case "function_call_output":
		text, err := joinText(it.Output, isResponsesText)
		if err != nil {
			return nil, fmt.Errorf("field \"output\": %w", err)
		}
		return append(turns, chatTurn{Message: Message{Role: "tool", Content: text, ToolCallID: it.CallID}}), nil
	}
	return turns, nil
}

// lastAssistant is the conversation's last turn when it is the assistant's, else nil.
func lastAssistant(turns []chatTurn) *chatTurn {
	if len(turns) == 0 || turns[len(turns)-1].Role != "assistant" {
		return nil
	}
	return &turns[len(turns)-1]
}
