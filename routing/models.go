package routing

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// ModelCount is how many of a log's requests name one model ("" for none).
type ModelCount struct {
	Model    string
	Requests int
}

// Models counts the requests of recs by logged model, most first, then by name.
func Models(recs []trace.Record) []ModelCount {
	n := map[string]int{}
	for i := range recs {
		n[recs[i].Model]++
	}
	out := make([]ModelCount, 0, len(n))
	for m, c := range n {
		out = append(out, ModelCount{m, c})
	}
	slices.SortFunc(out, func(a, b ModelCount) int {
		return cmp.Or(cmp.Compare(b.Requests, a.Requests), strings.Compare(a.Model, b.Model))
	})
	return out
}

// Unmapped is the error for the logged models m maps nowhere, each with its request count,
// so one run names every one of them before anything is sent; nil when all are mapped.
func (m *Map) Unmapped(recs []trace.Record) error {
	var miss []string
	for _, c := range Models(recs) {
		if _, ok := m.Target(c.Model); !ok {
			name := c.Model
			if name == "" {
				name = "(no model logged)"
			}
			miss = append(miss, fmt.Sprintf("%q (%d requests)", name, c.Requests))
		}
	}
	if len(miss) == 0 {
		return nil
	}
	return fmt.Errorf("--model-map: %d logged models are mapped to nothing: %s; map each (LOGGED=SERVED) or the rest (\"*\"=SERVED)",
		len(miss), strings.Join(miss, ", "))
}
