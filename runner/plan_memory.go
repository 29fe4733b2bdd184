package runner

import (
	"errors"
	"fmt"
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
	// defaultMemory is the process's memory budget by default (--memory): what a day-long
	// run holds, whatever the trace's length, on a machine of a few GiB.
	defaultMemory = 2 << 30
	// streamLead is how much of the run's wall time a streamed plan builds before the first
	// send (or less, when its budget fills first): enough that the builder, going on as the
	// run does, stays ahead of a schedule it can keep up with.
	streamLead = 30 * time.Second
)

// streamSource is what a streamed plan builds from: the builder and its records, with the
// budget of prompt bytes it may hold ahead of the sends. The records are the plan's only copy
// of its window (plan.reqs is nil): a day's window is millions of them, and a record holds
// under half what a request does.
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
// 0 for never streaming (a negative flag), else the least of defaultPlanMemory, an eighth of
// the machine's memory and a quarter of the process's memory budget (memory, 0 for none), so
// that the prompts ahead leave the rest of the budget to the run.
func streamBudget(flag, memory int64) int64 {
	switch {
	case flag > 0:
		return flag
	case flag < 0:
		return 0
	}
	b := int64(defaultPlanMemory)
	if ram := gchold.MachineMemory(); ram > 0 {
		b = min(b, int64(ram/8))
	}
	if memory > 0 {
		b = min(b, memory/4)
	}
	return b
}

// memoryBudget is the process's memory budget while the schedule runs (--memory): the flag's
// when set, 0 for none (a negative flag), else defaultMemory or half the machine's memory,
// the smaller.
func memoryBudget(flag int64) int64 {
	switch {
	case flag > 0:
		return flag
	case flag < 0:
		return 0
	}
	if ram := gchold.MachineMemory(); ram > 0 && int64(ram/2) < defaultMemory {
		return int64(ram / 2)
	}
	return defaultMemory
}

// overBudget is the run's error when its state before the first send leaves too little of the
// memory budget (gchold.OverBudget): the window's records and schedule are held for the whole
// run, so a longer window needs a larger budget or a share of it per process.
func overBudget(err error, p *plan) error {
	var ob *gchold.OverBudget
	if !errors.As(err, &ob) {
		return err
	}
	return fmt.Errorf("--memory: %w (the window holds %d requests): raise --memory, shorten the window (--limit, --from, --to), lower --plan-memory or split the window over processes (--shard)",
		err, p.count())
}

// fitsMemory is the budget check before the run starts its targets: the plan as prepared,
// and a streamed plan's prompts ahead of their sends, within --memory with room for the run.
func fitsMemory(cfg Config, p *plan) error {
	var ahead int64
	if p.stream != nil {
		ahead = p.stream.budget
	}
	return overBudget(gchold.Fits(uint64(memoryBudget(cfg.Memory)), uint64(ahead)), p)
}
