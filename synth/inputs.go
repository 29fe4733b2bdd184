package synth

import (
	"fmt"

	"github.com/llm-replay/replay/trace"
)

// inputs.go builds embeddings requests: a batch of inputs, each exact to its logged length
// (each gets the tokenizer's specials, as an engine encodes each input on its own), their sum
// the record's prompt tokens. A single input is built as a completions text.

// outputCap is the output a record's request asks for: its logged output tokens (at least 1),
// none for embeddings.
func outputCap(rec trace.Record, api API) int {
	if api == APIEmbeddings {
		return 0
	}
	return max(1, rec.OutputTokens)
}

// inputBatch is the embeddings batch rec's request sent (nil when it is not one): its
// inputs' token counts, when the log had an array of inputs.
func inputBatch(rec trace.Record, api API) []int {
	if api != APIEmbeddings || rec.Options == nil || !rec.Options.InputList || len(rec.Options.Inputs) == 0 {
		return nil
	}
	return rec.Options.Inputs
}

// planInputs plans an embeddings batch: each input's words are its own tail (embeddings
// share no cache across requests worth keeping), keyed by the request and the input.
func (b *Builder) planInputs(rec trace.Record, index int, inputs []int, at string) (*job, error) {
	sum := 0
	j := &job{req: Request{Index: index, Record: rec, API: APIEmbeddings}, inputs: inputs}
	for k, n := range inputs {
		words := n - b.textOverhead()
		if words < 1 {
			return nil, fmt.Errorf("%s: field \"inputs\"[%d]: %d tokens leaves no room for content: the tokenizer's post-processor adds %d by itself", at, k, n, b.textOverhead())
		}
		j.segs = append(j.segs, appendWords(nil, b.cfg.Seed, domainInput, index<<10|k&1023, words, len(b.v.word)))
		sum += n
	}
	if sum != rec.PromptTokens {
		return nil, fmt.Errorf("%s: field \"inputs\": the inputs' %d tokens are not the record's prompt_tokens %d", at, sum, rec.PromptTokens)
	}
	j.req.TargetPromptTokens = sum
	b.count(false, false, false)
	return j, nil
}

// verifyInputs makes each input of a batch exact.
func (b *Builder) verifyInputs(j *job) (Request, error) {
	r := j.req
	at := where(r.Record, r.Index)
	repairs := 0
	for k, words := range j.segs {
		text, ids, repaired, err := b.exactText(words, j.inputs[k], r.Index<<10|k&1023, fmt.Sprintf("%s: input %d", at, k))
		if err != nil {
			return r, err
		}
		r.Inputs, r.InputIDs = append(r.Inputs, text), append(r.InputIDs, ids)
		if repaired {
			repairs++
		}
	}
	if repairs > 0 {
		b.mu.Lock()
		b.stats.Repaired++
		b.mu.Unlock()
	}
	return r, nil
}
