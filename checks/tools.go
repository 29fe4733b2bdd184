package checks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
)

// toolName is the one function the tool-call probe declares and forces.
const toolName = "get_weather"

// toolParams are its parameters, in the strict shape OpenAI's function calling asks for (every
// property required, no others) with the keywords real tools use: a bounded string, an enum,
// an integer range.
var toolParams = mustCompile("get_weather_parameters", `{"type":"object","properties":{`+
	`"city":{"type":"string","minLength":1,"description":"The city, e.g. Lisbon"},`+
	`"unit":{"type":"string","enum":["celsius","fahrenheit"]},`+
	`"days":{"type":"integer","minimum":1,"maximum":7,"description":"Days of forecast"}},`+
	`"required":["city","unit","days"],"additionalProperties":false}`)

// toolCalls probes a forced tool call, streamed and not: the answer must call toolName with
// arguments that parse as JSON and validate against toolParams.
func (p *prober) toolCalls(ctx context.Context) Result {
	res := Result{Name: ToolCalls}
	if !p.cfg.chat() {
		res.Skipped = "the completions API has no tools"
		return res
	}
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: toolName, Description: "Get the weather forecast for a city.", Strict: true,
		Parameters: json.RawMessage(toolParams.text),
	}}}
	choice := openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: toolName}}
	for _, stream := range []bool{false, true} {
		r, err := p.ask(ctx, request{
			prompt: "What will the weather be in Lisbon for the next three days?", maxTokens: 256, stream: stream,
			tools: tools, toolChoice: choice,
		})
		if err != nil {
			res.CountFail("", streamed(stream)+err.Error())
			continue
		}
		if err := judgeCall(r.calls); err != nil {
			res.CountFail(streamed(stream)+r.describe(), streamed(stream)+err.Error())
			continue
		}
		res.CountPass(streamed(stream) + "called " + toolName + " with valid arguments")
	}
	return res
}

// judgeCall finds the call of toolName and validates its arguments.
func judgeCall(calls []toolCall) error {
	if len(calls) == 0 {
		return errors.New("no tool call, though tool_choice forced " + toolName)
	}
	for _, c := range calls {
		if c.name != toolName {
			continue
		}
		if err := toolParams.validate(c.arguments); err != nil {
			return fmt.Errorf("the arguments of %s: %v: %s", toolName, err, quote([]byte(c.arguments)))
		}
		return nil
	}
	return fmt.Errorf("no call of %s, only of %s", toolName, quote([]byte(calls[0].name)))
}

// streamed prefixes what a streamed request saw.
func streamed(stream bool) string {
	if stream {
		return "streamed: "
	}
	return ""
}
