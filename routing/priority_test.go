package routing

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/trace"
)

// TestPriorityMap: the first matching entry gives a request's priority, by model, API or a
// logged header; "*" matches anything; bad entries are named.
func TestPriorityMap(t *testing.T) {
	m, err := ParsePriorityMap("model=gpt-4o:0, header:x-tier=batch:20, api=embeddings:10, model=*:5")
	if err != nil {
		t.Fatal(err)
	}
	batch := trace.Record{Model: "gpt-4o-mini", Headers: []trace.Header{{Name: "x-tier", Value: "batch"}}}
	for _, c := range []struct {
		rec  trace.Record
		api  string
		want int
	}{
		{trace.Record{Model: "gpt-4o"}, "chat", 0},
		{batch, "chat", 20},
		{trace.Record{Model: "e5"}, "embeddings", 10},
		{trace.Record{Model: "other"}, "chat", 5},
	} {
		if got, ok := m.Priority(&c.rec, c.api); !ok || got != c.want {
			t.Errorf("%+v on %s: %d %v, want %d", c.rec, c.api, got, ok, c.want)
		}
	}
	for _, bad := range []string{"gpt-4o:0", "model=gpt-4o", "model=gpt-4o:x", "tier=a:1", "model=:3"} {
		if _, err := ParsePriorityMap(bad); err == nil || !strings.Contains(err.Error(), "--priority-map") {
			t.Errorf("%q: %v, want an error naming --priority-map", bad, err)
		}
	}
	if m, _ := ParsePriorityMap(""); m != nil {
		t.Error("an empty map is a map")
	}
}
