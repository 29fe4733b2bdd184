package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// modelTally counts an ingested log's records by logged model, for the stderr line that
// says which models a log holds (what a --model-map must map).
type modelTally map[string]int64

// observing is observe (nil for none) that also counts each record's model in m.
func (m modelTally) observing(observe func(trace.Record)) func(trace.Record) {
	return func(r trace.Record) {
		m[r.Model]++
		if observe != nil {
			observe(r)
		}
	}
}

// write says the models and their counts, most first; nothing when no record names one.
func (m modelTally) write(w io.Writer) {
	if len(m) == 0 || (len(m) == 1 && m[""] > 0) {
		return
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b)) })
	parts := make([]string, len(names))
	for i, n := range names {
		label := n
		if n == "" {
			label = "(none logged)"
		}
		parts[i] = fmt.Sprintf("%s %d", label, m[n])
	}
	fmt.Fprintf(w, "replay ingest: models: %s\n", strings.Join(parts, ", "))
}
