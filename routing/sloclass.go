package routing

import (
	"fmt"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// ClassBy is what --slo-class-by picks a request's SLO class by: its logged model (before
// the map), its API, or a logged header's value.
type ClassBy struct {
	kind   string // "model", "api", "header"
	header string // lower case, for "header"
}

// ParseClassBy reads model, api or header:NAME; "" is no classes.
func ParseClassBy(s string) (ClassBy, error) {
	switch {
	case s == "":
		return ClassBy{}, nil
	case s == "model" || s == "api":
		return ClassBy{kind: s}, nil
	case strings.HasPrefix(s, "header:") && len(s) > len("header:"):
		return ClassBy{kind: "header", header: strings.ToLower(s[len("header:"):])}, nil
	}
	return ClassBy{}, fmt.Errorf("--slo-class-by %q: want model, api or header:NAME", s)
}

// Set reports whether classes are picked at all.
func (c ClassBy) Set() bool { return c.kind != "" }

// String is the flag's value.
func (c ClassBy) String() string {
	if c.kind == "header" {
		return "header:" + c.header
	}
	return c.kind
}

// Class is rec's class: def is the API a record that logs none is sent to. A record without
// the model or header is in class "" (judged by --slo, the run's own limits).
func (c ClassBy) Class(rec *trace.Record, def string) string {
	switch c.kind {
	case "model":
		return rec.Model
	case "api":
		if rec.Options != nil && rec.Options.API != "" {
			return rec.Options.API
		}
		return def
	case "header":
		v, _ := rec.HeaderValue(c.header)
		return v
	}
	return ""
}
