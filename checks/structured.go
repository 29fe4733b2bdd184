package checks

import (
	"context"
	"encoding/json"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
)

// personSchema is the structured-output probe's schema, strict as OpenAI's structured outputs
// require (every property required, no others), with a bounded integer and an array.
var personSchema = mustCompile("person", `{"type":"object","properties":{`+
	`"name":{"type":"string","minLength":1},`+
	`"age":{"type":"integer","minimum":0,"maximum":150},`+
	`"languages":{"type":"array","items":{"type":"string"}}},`+
	`"required":["name","age","languages"],"additionalProperties":false}`)

// structuredOutput probes response_format json_schema, streamed and not: the content must
// parse as JSON and validate against personSchema.
func (p *prober) structuredOutput(ctx context.Context) Result {
	res := Result{Name: StructuredOutput}
	if !p.cfg.chat() {
		res.Skipped = "the completions API has no response_format"
		return res
	}
	format := &openai.ChatCompletionResponseFormat{
		Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
			Name: "person", Strict: true, Schema: json.RawMessage(personSchema.text),
		},
	}
	for _, stream := range []bool{false, true} {
		r, err := p.ask(ctx, request{
			prompt: "Describe Ada Lovelace as a person: her name, the age she reached, the languages she spoke.", maxTokens: 256,
			stream: stream, format: format,
		})
		if err != nil {
			res.CountFail("", streamed(stream)+err.Error())
			continue
		}
		if err := personSchema.validate(r.content); err != nil {
			res.CountFail(streamed(stream)+r.describe(), fmt.Sprintf("%sthe content: %v: %s", streamed(stream), err, quote([]byte(r.content))))
			continue
		}
		res.CountPass(streamed(stream) + "content fits the schema")
	}
	return res
}
