package ingest

import (
	"errors"
	"fmt"

	"github.com/llm-replay/replay/internal/gchold"
)

// A file whose records are out of order is held whole to be sorted (Options.Sort, and every
// log whose source writes records as requests end). That is bounded by the memory budget, the
// project's one bound on the process (replay run --memory; by default half of what this
// machine or its cgroup allows): a file that would hold more is refused, naming the fix,
// rather than left to the kernel's OOM killer.

// ErrOverMemory is a file too large to hold whole under the memory budget.
var ErrOverMemory = errors.New("past the memory budget")

// HoldLimit is the most records of each bytes a reader may hold to sort one file, under
// opts' MemoryBudget (or half the machine's memory); 0 when nothing is known to bound it.
func HoldLimit(opts Options, each int64) int64 {
	budget := opts.MemoryBudget
	if budget <= 0 {
		budget = int64(gchold.MachineMemory() / 2)
	}
	if budget <= 0 || each <= 0 {
		return 0
	}
	return max(budget/each, 1)
}

// OverMemory is the error of a reader that reached HoldLimit in path.
func OverMemory(path string, opts Options, held, each int64) error {
	budget := opts.MemoryBudget
	what := "the memory budget"
	if budget <= 0 {
		budget, what = int64(gchold.MachineMemory()/2), "half this machine's memory"
	}
	return fmt.Errorf("%s: %w: sorting it holds its records (%d read, about %d bytes each), more than %s (%.1f GiB) allows: split the file (by hour, say: a folder of files is read as one log, each held alone), or raise the budget (replay run --memory)",
		path, ErrOverMemory, held, each, what, float64(budget)/(1<<30))
}
