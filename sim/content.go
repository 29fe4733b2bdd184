package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Content is what a chat request that asks for JSON answers with in place of the filler: a
// tool call when tools are offered and tool_choice forces one ("required", or a named
// function), else the message content when response_format asks for json_object or
// json_schema. Text is a minimal valid instance of the declared schema (see instance), so that
// a client's tool-call parser and schema validator have something true to check; it is not
// model output, any more than the filler is. The completions API keeps the filler: tools and
// response_format are chat features.
type Content struct {
	// Tool is the name of the function called; "" when Text is the message content.
	Tool string
	// Text is the JSON text: the call's arguments, or the message content.
	Text string
}

// jsonObjectContent is json_object's answer, the smallest JSON object. One shared value, so
// that the fast parser answers such requests without an allocation.
var jsonObjectContent = &Content{Text: "{}"}

// toolChoiceKind is what tool_choice asks of a request with tools.
type toolChoiceKind uint8

const (
	toolChoiceAuto   toolChoiceKind = iota // absent, null, "auto" or anything unknown
	toolChoiceNone                         // "none": answer freely even with tools offered
	toolChoiceForced                       // "required", or an object naming a function
)

// toolChoiceOf reads tool_choice's raw value.
func toolChoiceOf(raw json.RawMessage) toolChoiceKind {
	raw = bytes.TrimSpace(raw)
	switch {
	case isString(raw, "none"):
		return toolChoiceNone
	case isString(raw, "required"), len(raw) > 0 && raw[0] == '{':
		return toolChoiceForced
	}
	return toolChoiceAuto
}

// contentOf is the content a chat request asks for, nil for the filler. A forced tool call
// wins over a response_format, which shapes the message content that a call leaves null.
func (w *wireRequest) contentOf(kind formatKind, tools bool) (*Content, error) {
	if tools && toolChoiceOf(w.ToolChoice) == toolChoiceForced {
		if c, err := toolContent(w.Tools, w.ToolChoice, "tools[].function.parameters"); c != nil || err != nil {
			return c, err
		}
	}
	switch kind {
	case formatJSONObject:
		return jsonObjectContent, nil
	case formatJSONSchema:
		return schemaContent(w.ResponseFormat.JSONSchema)
	}
	return nil, nil
}

// wireTool is one element of tools as far as the call needs it.
type wireTool struct {
	Type     string `json:"type"`
	Function *struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// toolContent is the call tool_choice forces: of the function it names, or of the first
// function offered under "required" (nil when none is). A named function missing from tools
// is called all the same with "{}": a real server refuses that, but the simulator replays
// traffic a production server accepted, whose tools a log's redaction may have trimmed.
// Elements of tools that are not function tools are passed over, as they cannot be called.
// paramsField names the parameters in errors, as the request's API spells them.
func toolContent(toolsRaw, choiceRaw json.RawMessage, paramsField string) (*Content, error) {
	var choice struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	named := !isString(choiceRaw, "required")
	if named && json.Unmarshal(choiceRaw, &choice) != nil {
		return nil, errors.New("request body: field \"tool_choice\": must be \"none\", \"auto\", \"required\" or {\"type\":\"function\",\"function\":{\"name\":...}}")
	}
	var items []json.RawMessage
	json.Unmarshal(toolsRaw, &items) // toolsGiven has checked it is a list
	for _, it := range items {
		var t wireTool
		if json.Unmarshal(it, &t) != nil || t.Function == nil || t.Function.Name == "" {
			continue
		}
		if named && t.Function.Name != choice.Function.Name {
			continue
		}
		text, err := argumentsOf(t.Function.Parameters, paramsField)
		if err != nil {
			return nil, err
		}
		return &Content{Tool: t.Function.Name, Text: text}, nil
	}
	if named && choice.Function.Name != "" {
		return &Content{Tool: choice.Function.Name, Text: "{}"}, nil
	}
	return nil, nil
}

// argumentsOf is a call's arguments for a function's parameters schema; a function that
// declares none takes no arguments, "{}" (OpenAI's reading of an omitted parameters).
func argumentsOf(params json.RawMessage, field string) (string, error) {
	if isNull(params) {
		return "{}", nil
	}
	text, err := instance(params)
	if err != nil {
		return "", fmt.Errorf("request body: field %q: %w", field, err)
	}
	return text, nil
}

// schemaContent is json_schema's content: an instance of json_schema.schema, "{}" when no
// schema is given (any JSON then fits).
func schemaContent(raw json.RawMessage) (*Content, error) {
	const field = "request body: field \"response_format.json_schema\": "
	if isNull(raw) {
		return jsonObjectContent, nil
	}
	var js struct {
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(raw, &js); err != nil {
		return nil, errors.New(field + "must be an object with a schema")
	}
	if isNull(js.Schema) {
		return jsonObjectContent, nil
	}
	text, err := instance(js.Schema)
	if err != nil {
		return nil, errors.New(field + "schema: " + err.Error())
	}
	return &Content{Text: text}, nil
}
