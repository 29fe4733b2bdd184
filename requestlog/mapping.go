package requestlog

import (
	"fmt"
	"strings"

	"github.com/llm-replay/replay/ingest"
)

// Fields are the names --map accepts on its left side for request logs: where in a log line
// the timestamp, the request body, the response (or its usage), the model, a session id, a
// user id and the request's URL path (which API it was sent to) sit, and the outcome: the HTTP status, a cancelled flag, the duration in
// milliseconds and the end time (which say when a cancelled request was given up), and the
// request headers as logged (an object of names to strings or string lists). Values are
// dotted paths from the line's root; a value on the way that is a JSON string holding an
// object (a body logged as text) is parsed and walked into.
var Fields = []string{"timestamp", "request", "response", "model", "session_id", "user", "path", "status", "cancelled", "duration_ms", "end_timestamp", "headers"}

// defaultMap is the OpenAI-compatible gateway shape: {"timestamp", "request", "response"},
// with the model inside the request body, no session or user field, and the path and the
// outcome fields at the top level when a line has them.
var defaultMap = map[string]string{
	"timestamp":     "timestamp",
	"request":       "request",
	"response":      "response",
	"model":         "request.model",
	"path":          "path",
	"status":        "status",
	"cancelled":     "cancelled",
	"duration_ms":   "duration_ms",
	"end_timestamp": "end_timestamp",
	"headers":       "headers",
}

// mapping holds the split paths of every field ("" = not mapped).
type mapping map[string][]string

// buildMapping merges user overrides into the defaults and checks the field names.
func buildMapping(over map[string]string) (mapping, error) {
	m := mapping{}
	for f, p := range defaultMap {
		m[f] = strings.Split(p, ".")
	}
	for f, p := range over {
		known := false
		for _, k := range Fields {
			known = known || k == f
		}
		if !known {
			return nil, fmt.Errorf("requestlog: --map: unknown field %q (want one of %s)", f, strings.Join(Fields, ", "))
		}
		if p == "" {
			delete(m, f)
			continue
		}
		parts, err := ingest.SplitPath(p)
		if err != nil {
			return nil, fmt.Errorf("requestlog: --map: field %s: %w", f, err)
		}
		m[f] = parts
	}
	for _, f := range []string{"timestamp", "request"} {
		if len(m[f]) == 0 {
			return nil, fmt.Errorf("requestlog: --map: field %s cannot be unmapped", f)
		}
	}
	return m, nil
}

func (m mapping) name(f string) string {
	var b strings.Builder
	for i, p := range m[f] {
		if strings.ContainsAny(p, ".[") {
			fmt.Fprintf(&b, "[%q]", p)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// ParseMap reads the command-line mapping "field=path,field=path" (fields from Fields, paths
// dotted from the line's root, e.g. request=body,timestamp=meta.ts).
func ParseMap(s string) (map[string]string, error) {
	out, err := ingest.ParsePairs(s, "path")
	if err != nil {
		return nil, err
	}
	if _, err := buildMapping(out); err != nil {
		return nil, err
	}
	return out, nil
}
