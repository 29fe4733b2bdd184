package checks

import (
	"context"
	"errors"
	"fmt"
)

// samplingFields are the sampling fields replayed traffic carries, each at a value every
// OpenAI-compatible server must take (zero values included: go-openai's omitempty would drop
// them, so they are set in the body directly).
var samplingFields = []struct {
	name  string
	value any
}{
	{"temperature", 0}, {"top_p", 0.9}, {"seed", 1}, {"presence_penalty", 0}, {"frequency_penalty", 0},
}

// sampling probes that each sampling field is accepted, one request per field so that a
// refusal names its field: a 4xx (or any failure) is a Fail.
func (p *prober) sampling(ctx context.Context) Result {
	res := Result{Name: Sampling}
	for _, f := range samplingFields {
		field := fmt.Sprintf("%s=%v", f.name, f.value)
		_, err := p.ask(ctx, request{prompt: "Say hello.", maxTokens: 4, fields: map[string]any{f.name: f.value}})
		var se *statusError
		switch {
		case errors.As(err, &se) && se.status/100 == 4:
			res.CountFail(field+" refused", fmt.Sprintf("%s refused: %v", field, err))
		case err != nil:
			res.CountFail(field+" failed", fmt.Sprintf("%s: %v", field, err))
		default:
			res.CountPass("")
		}
	}
	if res.Fail == 0 {
		res.See("all accepted")
	}
	return res
}
