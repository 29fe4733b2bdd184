package routing

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// priority.go is --priority-map: a scheduling priority for each request whose log gave none,
// derived from its logged model, its API or a logged header, as a gateway that sets vLLM's
// priority by tier would. Entries are BY=VALUE:PRIORITY, BY being model, api or header:NAME,
// VALUE "*" for any; the first entry that matches a request gives its priority. A lower value
// is served first (vLLM's priority scheduling).

// PriorityMap is a parsed --priority-map.
type PriorityMap struct {
	rules []priorityRule
}

type priorityRule struct {
	by       ClassBy
	value    string // "*" matches any value, even none
	priority int
}

// ParsePriorityMap reads "model=gpt-4o:0,api=embeddings:10,header:x-tier=batch:20,model=*:5".
func ParsePriorityMap(s string) (*PriorityMap, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	m := &PriorityMap{}
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		eq, colon := strings.Index(e, "="), strings.LastIndex(e, ":")
		if eq <= 0 || colon < eq {
			return nil, fmt.Errorf("--priority-map entry %q: want BY=VALUE:PRIORITY, BY model, api or header:NAME (e.g. model=gpt-4o:0)", e)
		}
		by, err := ParseClassBy(e[:eq])
		if err != nil {
			return nil, fmt.Errorf("--priority-map entry %q: %q is not model, api or header:NAME", e, e[:eq])
		}
		p, err := strconv.Atoi(e[colon+1:])
		if err != nil {
			return nil, fmt.Errorf("--priority-map entry %q: priority %q is not an integer", e, e[colon+1:])
		}
		value := e[eq+1 : colon]
		if value == "" {
			return nil, fmt.Errorf("--priority-map entry %q: no value (\"*\" matches any)", e)
		}
		m.rules = append(m.rules, priorityRule{by: by, value: value, priority: p})
	}
	return m, nil
}

// Priority is rec's priority by the first matching entry (def is the API of a record that
// logs none), and whether one matched.
func (m *PriorityMap) Priority(rec *trace.Record, def string) (int, bool) {
	if m == nil {
		return 0, false
	}
	for _, r := range m.rules {
		if v := r.by.Class(rec, def); r.value == "*" || v == r.value {
			return r.priority, true
		}
	}
	return 0, false
}
