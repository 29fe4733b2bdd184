package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
)

// instance returns the JSON text of a minimal instance of a JSON Schema (raw JSON): objects
// with their required properties, the first value of an enum, a const, the first alternative
// of anyOf or oneOf merged into its parent (so a nullable type gives its non-null value when
// listed first), allOf merged, local $refs (#/$defs/..., #/definitions/...) followed, strings of
// minLength ("a"s) or a sample of a common format, the number nearest 0 that the bounds and
// multipleOf allow, false, null, and arrays of minItems elements (prefixItems first). It knows
// no more than these keywords: a pattern, uniqueItems over several items, not, if/then/else
// and dependent schemas are not honoured, so such schemas may get an instance that does not
// validate. Depth and size are bounded, so that no schema makes the simulator's answer huge.
func instance(schema []byte) (string, error) {
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber() // consts and enums are copied as written
	var root any
	if err := d.Decode(&root); err != nil {
		return "", err
	}
	switch root.(type) {
	case map[string]any, bool:
	default:
		return "", errors.New("must be an object or a boolean")
	}
	g := instanceGen{root: root, budget: maxInstanceValues}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false) // enum values and names as written
	if err := e.Encode(g.value(root, 0)); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// Bounds on one instance: nesting, values made, and one string's or array's length.
const (
	maxInstanceDepth  = 32
	maxInstanceValues = 4096
	maxInstanceLength = 1024
)

// instanceGen makes one instance; root is the schema that local $refs point into.
type instanceGen struct {
	root   any
	budget int
}

// value is a minimal instance of schema s. Past the bounds it is null, which keeps the answer
// small rather than valid.
func (g *instanceGen) value(s any, depth int) any {
	if depth > maxInstanceDepth || g.budget <= 0 {
		return nil
	}
	g.budget--
	m, ok := s.(map[string]any)
	if !ok {
		return map[string]any{} // true (or a junk subschema) admits anything
	}
	m = g.flatten(m, depth)
	if v, ok := m["const"]; ok {
		return v
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch schemaType(m) {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, depth)
	case "string":
		return stringInstance(m)
	case "integer":
		return numberInstance(m, true)
	case "number":
		return numberInstance(m, false)
	case "boolean":
		return false
	case "null":
		return nil
	}
	return map[string]any{}
}

// flatten merges what $ref, allOf and the first alternative of anyOf or oneOf add to m (in
// that order, so the instance does not depend on map order), until none is left at the top.
func (g *instanceGen) flatten(m map[string]any, depth int) map[string]any {
	for range maxInstanceDepth - depth {
		parts, found := g.applicators(m)
		if !found {
			return m
		}
		rest := map[string]any{}
		for k, v := range m {
			if !slices.Contains(applicatorKeys, k) {
				rest[k] = v
			}
		}
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok {
				rest = mergeSchemas(rest, pm)
			}
		}
		m = rest
	}
	return m
}

// applicatorKeys are the keywords flatten merges away.
var applicatorKeys = []string{"$ref", "allOf", "anyOf", "oneOf"}

// applicators lists the subschemas that m's applicator keywords add, and whether it has any.
func (g *instanceGen) applicators(m map[string]any) (parts []any, found bool) {
	for _, k := range applicatorKeys {
		v, ok := m[k]
		if !ok {
			continue
		}
		found = true
		switch k {
		case "$ref":
			if ref, ok := v.(string); ok {
				parts = append(parts, g.resolve(ref))
			}
		case "allOf":
			all, _ := v.([]any)
			parts = append(parts, all...)
		default:
			if alts, ok := v.([]any); ok && len(alts) > 0 {
				parts = append(parts, alts[0])
			}
		}
	}
	return parts, found
}

// mergeSchemas adds b's keywords to a: properties and required are united, any other keyword
// of a stays as it is.
func mergeSchemas(a, b map[string]any) map[string]any {
	for k, v := range b {
		switch k {
		case "properties":
			pa, _ := a[k].(map[string]any)
			pb, _ := v.(map[string]any)
			merged := map[string]any{}
			for n, s := range pb {
				merged[n] = s
			}
			for n, s := range pa {
				merged[n] = s
			}
			a[k] = merged
		case "required":
			ra, _ := a[k].([]any)
			rb, _ := v.([]any)
			a[k] = append(slices.Clip(ra), rb...)
		default:
			if _, ok := a[k]; !ok {
				a[k] = v
			}
		}
	}
	return a
}

// resolve follows a local $ref (a JSON pointer into the root schema); anything else, or a
// pointer to nothing, is the schema true.
func (g *instanceGen) resolve(ref string) any {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return true
	}
	cur := g.root
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur, ok = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			ok = err == nil && i >= 0 && i < len(c)
			if ok {
				cur = c[i]
			}
		default:
			ok = false
		}
		if !ok {
			return true
		}
	}
	return cur
}

// schemaType is the type a schema asks for: its type, the first listed when several are, or
// the one its keywords imply; "" when nothing constrains it.
func schemaType(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			if s, ok := t[0].(string); ok {
				return s
			}
		}
	}
	implied := []struct {
		typ  string
		keys []string
	}{
		{"object", []string{"properties", "required", "additionalProperties", "minProperties"}},
		{"array", []string{"items", "prefixItems", "minItems"}},
		{"string", []string{"minLength", "maxLength", "pattern", "format"}},
		{"number", []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}},
	}
	for _, im := range implied {
		for _, k := range im.keys {
			if _, ok := m[k]; ok {
				return im.typ
			}
		}
	}
	return ""
}

// object has the required properties, then as many other declared ones (by name) as
// minProperties asks for.
func (g *instanceGen) object(m map[string]any, depth int) map[string]any {
	props, _ := m["properties"].(map[string]any)
	out := map[string]any{}
	required, _ := m["required"].([]any)
	for _, r := range required {
		name, ok := r.(string)
		if !ok {
			continue
		}
		sub, declared := props[name]
		if !declared {
			sub = m["additionalProperties"]
		}
		out[name] = g.value(sub, depth+1)
	}
	want := min(intKeyword(m, "minProperties"), maxInstanceLength)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if len(out) >= want {
			break
		}
		if _, ok := out[n]; !ok {
			out[n] = g.value(props[n], depth+1)
		}
	}
	return out
}

// array has minItems elements: prefixItems' (or a draft-7 items list's) first, then items'.
func (g *instanceGen) array(m map[string]any, depth int) []any {
	n := min(intKeyword(m, "minItems"), maxInstanceLength)
	prefix, _ := m["prefixItems"].([]any)
	items := m["items"]
	if list, ok := items.([]any); ok {
		prefix, items = list, m["additionalItems"]
	}
	out := make([]any, 0, n)
	for i := range n {
		sub := items
		if i < len(prefix) {
			sub = prefix[i]
		}
		out = append(out, g.value(sub, depth+1))
	}
	return out
}

// formatSamples are values of the common string formats, for validators that assert formats.
var formatSamples = map[string]string{
	"date-time": "1970-01-01T00:00:00Z", "date": "1970-01-01", "time": "00:00:00Z",
	"email": "a@example.com", "hostname": "example.com", "ipv4": "127.0.0.1", "ipv6": "::1",
	"uri": "https://example.com", "uuid": "00000000-0000-0000-0000-000000000000",
	"duration": "P1D",
}

// stringInstance is a format's sample, or "", padded with "a" to minLength.
func stringInstance(m map[string]any) string {
	format, _ := m["format"].(string)
	s := formatSamples[format]
	if n := min(intKeyword(m, "minLength"), maxInstanceLength); len(s) < n {
		s += strings.Repeat("a", n-len(s))
	}
	return s
}

// numberInstance is 0 moved just inside the bounds (minimum, maximum, exclusive ones in both
// the 2019+ numeric and the draft-4 boolean form), then made an integer (rounded away from
// the bound it was moved to) and a multiple of multipleOf when asked.
func numberInstance(m map[string]any, integer bool) json.Number {
	lo, loSet := numberKeyword(m, "minimum")
	hi, hiSet := numberKeyword(m, "maximum")
	loEx, hiEx := m["exclusiveMinimum"] == true, m["exclusiveMaximum"] == true
	if v, ok := numberKeyword(m, "exclusiveMinimum"); ok && (!loSet || v >= lo) {
		lo, loSet, loEx = v, true, true
	}
	if v, ok := numberKeyword(m, "exclusiveMaximum"); ok && (!hiSet || v <= hi) {
		hi, hiSet, hiEx = v, true, true
	}
	step := 1.0 // what "just inside" an exclusive bound moves by
	if !integer && loSet && hiSet {
		step = (hi - lo) / 2
	}
	v, round := 0.0, math.Ceil
	if loSet && (v < lo || loEx && v <= lo) {
		v = lo
		if loEx {
			v += step
		}
	}
	if hiSet && (v > hi || hiEx && v >= hi) {
		v, round = hi, math.Floor
		if hiEx {
			v -= step
		}
	}
	if integer {
		v = round(v)
	}
	if mo, ok := numberKeyword(m, "multipleOf"); ok && mo > 0 {
		v = round(v/mo) * mo
	}
	switch {
	case math.IsInf(v, 0) || math.IsNaN(v):
		return "0" // bounds beyond float64: not worth an error
	case integer && math.Abs(v) < 1<<53:
		return json.Number(strconv.FormatInt(int64(v), 10))
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
}

// numberKeyword reads a numeric keyword.
func numberKeyword(m map[string]any, k string) (float64, bool) {
	n, ok := m[k].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := n.Float64()
	return v, err == nil && !math.IsInf(v, 0)
}

// intKeyword reads a count keyword (minItems, minLength, minProperties); absent or junk is 0.
func intKeyword(m map[string]any, k string) int {
	v, ok := numberKeyword(m, k)
	if !ok || v < 0 {
		return 0
	}
	return int(min(v, maxInstanceLength))
}
