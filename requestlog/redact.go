package requestlog

import (
	"sync"

	"github.com/llm-replay/replay/trace"
)

// redactor replaces the text of tool definitions and JSON schemas (descriptions, titles,
// comments, enum, const, default and example values, and any string of a member it does not
// know) with synthetic text of the same token length: those are written by the log's users
// and may hold their data, and the prompt's length must stay. Names (of tools, of
// properties, in required and $ref), types, formats and patterns are configuration and are
// kept, as is the structure, key order included. It is safe for concurrent use.
type redactor struct {
	tok counter
	mu  sync.Mutex
	// done remembers redactions by their input: agents send one tool list with every
	// request. Bounded: cleared when it holds doneBytes.
	done map[string][]byte
	size int
}

const doneBytes = 16 << 20

func newRedactor(tok counter) *redactor { return &redactor{tok: tok, done: map[string][]byte{}} }

// tools redacts a tools array, responseFormat a response_format object.
func (r *redactor) tools(raw []byte) ([]byte, error) { return r.redact('t', raw, r.toolList) }

func (r *redactor) responseFormat(raw []byte) ([]byte, error) {
	return r.redact('r', raw, r.format)
}

// redact parses raw, rewrites it with walk and writes it compactly, once per distinct input.
func (r *redactor) redact(kind byte, raw []byte, walk func(*jnode)) ([]byte, error) {
	key := string(kind) + string(raw)
	r.mu.Lock()
	out, ok := r.done[key]
	r.mu.Unlock()
	if ok {
		return out, nil
	}
	n, err := parseOrdered(raw)
	if err != nil {
		return nil, err
	}
	walk(n)
	out = n.appendJSON(nil)
	r.mu.Lock()
	if r.size+len(key)+len(out) > doneBytes {
		clear(r.done)
		r.size = 0
	}
	r.done[key] = out
	r.size += len(key) + len(out)
	r.mu.Unlock()
	return out, nil
}

// toolList walks [{"type": "function", "function": {...}}].
func (r *redactor) toolList(n *jnode) {
	if n.kind != 'a' {
		r.strings(n)
		return
	}
	for _, t := range n.vals {
		r.members(t, map[string]func(*jnode){"type": keep, "function": r.function})
	}
}

// function walks {"name", "description", "parameters": schema, "strict"}.
func (r *redactor) function(n *jnode) {
	r.members(n, map[string]func(*jnode){"name": keep, "parameters": r.schema})
}

// format walks {"type", "json_schema": {"name", "description", "schema", "strict"}}; a bare
// "schema" beside type is read as one too.
func (r *redactor) format(n *jnode) {
	inner := func(s *jnode) { r.members(s, map[string]func(*jnode){"name": keep, "schema": r.schema}) }
	r.members(n, map[string]func(*jnode){"type": keep, "json_schema": inner, "schema": r.schema})
}

// members walks an object: the members named in walk their way, every other member's
// strings replaced. Anything else than an object has its strings replaced.
func (r *redactor) members(n *jnode, walk map[string]func(*jnode)) {
	if n.kind != 'o' {
		r.strings(n)
		return
	}
	for i, k := range n.keys {
		if w, ok := walk[k]; ok {
			w(n.vals[i])
		} else {
			r.strings(n.vals[i])
		}
	}
}

func keep(*jnode) {}

// strings replaces every string in n.
func (r *redactor) strings(n *jnode) {
	switch n.kind {
	case 's':
		r.replace(n, 0)
	case 'o', 'a':
		for _, v := range n.vals {
			r.strings(v)
		}
	}
}

// replace makes string node n filler text of its token length.
func (r *redactor) replace(n *jnode, salt int) {
	n.text = synthText(r.tok, r.tok.Count(n.text), salt)
}

// apiTools redacts a tools array in its API's shape (see trace.Options.Tools).
func (r *redactor) apiTools(api string, raw []byte) ([]byte, error) {
	switch api {
	case trace.APIResponses:
		return r.redact('f', raw, func(n *jnode) { r.list(n, r.flatTool) })
	case trace.APIMessages:
		return r.redact('a', raw, func(n *jnode) { r.list(n, r.anthropicTool) })
	}
	return r.tools(raw)
}

// textConfig redacts a Responses body's text object: {"format": {"type", "name", "schema",
// "description", "strict"}, "verbosity"}.
func (r *redactor) textConfig(raw []byte) ([]byte, error) {
	format := func(f *jnode) {
		r.members(f, map[string]func(*jnode){"type": keep, "name": keep, "strict": keep, "schema": r.schema})
	}
	return r.redact('x', raw, func(n *jnode) {
		r.members(n, map[string]func(*jnode){"format": format, "verbosity": keep})
	})
}

// list walks each element of an array with walk; anything else has its strings replaced.
func (r *redactor) list(n *jnode, walk func(*jnode)) {
	if n.kind != 'a' {
		r.strings(n)
		return
	}
	for _, v := range n.vals {
		walk(v)
	}
}

// flatTool walks a Responses tool: {"type", "name", "description", "parameters": schema,
// "strict"} (other tool types keep their type only).
func (r *redactor) flatTool(n *jnode) {
	r.members(n, map[string]func(*jnode){"type": keep, "name": keep, "strict": keep, "parameters": r.schema})
}

// anthropicTool walks an Anthropic tool: {"name", "description", "input_schema": schema,
// "type", "cache_control"}.
func (r *redactor) anthropicTool(n *jnode) {
	r.members(n, map[string]func(*jnode){"type": keep, "name": keep, "cache_control": keep, "input_schema": r.schema})
}
