package runner

import (
	"time"

	"github.com/llm-replay/replay/internal/gchold"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// plan_memory.go decides whether a window's prompts are built before the run or as it goes.

const (
	// bytesPerPromptToken is what a built prompt holds per token until its send: its text (~5
	// bytes a token with the synthesized vocabulary) and the slice and record around it,
	// measured as the live heap of a 328,000-prompt plan (6.6 bytes a token). The chat API holds
	// the text twice: the rendered prompt and the messages.
	bytesPerPromptToken = 7
	// defaultPlanMemory bounds the prompts held before the run by default, and a streamed
	// plan's prompts ahead of their sends: at most this, and an eighth of the machine's memory.
	defaultPlanMemory = 1 << 30
	// streamLead is how much of the run's wall time a streamed plan builds before the first
	// send (or less, when its budget fills first): enough that the builder, going on as the
	// run does, stays ahead of a schedule it can keep up with.
	streamLead = 30 * time.Second
)

// streamSource is what a streamed plan builds from: the builder and its records, with the
// budget of prompt bytes it may hold ahead of the sends.
type streamSource struct {
	builder *synth.Builder
	recs    []trace.Record
	budget  int64
}

// planMemory estimates the bytes recs' built prompts hold at once when built before the run.
func planMemory(recs []trace.Record, api synth.API) int64 {
	var n int64
	for i := range recs {
		per := int64(bytesPerPromptToken)
		if trace.ChatFamily(string(synth.RecordAPI(recs[i], api))) {
			per *= 2 // the rendered text and the messages
		}
		n += int64(recs[i].PromptTokens)*per + 256 // and the request's own fields
	}
	return n
}

// streamBudget is the prompt memory a plan may hold (--plan-memory): the flag's when set,
// 0 for never streaming (a negative flag), else defaultPlanMemory or an eighth of the
// machine's memory, the smaller.
func streamBudget(flag int64) int64 {
	switch {
	case flag > 0:
		return flag
	case flag < 0:
		return 0
	}
	if ram := gchold.MachineMemory(); ram > 0 && ram/8 < defaultPlanMemory {
		return int64(ram / 8)
	}
	return defaultPlanMemory
}
