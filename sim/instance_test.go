package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validate reports whether text is valid JSON that fits schema, checked by a JSON Schema
// library rather than by the generator's own reading.
func validate(t *testing.T, schema, text string) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// TestInstanceValidates: for the keywords instance knows, what it makes validates against the
// schema, formats asserted, and is the same every time.
func TestInstanceValidates(t *testing.T) {
	schemas := []string{
		`true`,
		`{}`,
		`{"type":"object"}`,
		`{"type":"object","properties":{"city":{"type":"string","minLength":1},"unit":{"type":"string","enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"maximum":14}},"required":["city","unit","days"],"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":["null","integer"]}},"required":["a","b"]}`,
		`{"type":"object","properties":{"v":{"anyOf":[{"type":"string","minLength":3},{"type":"null"}]}},"required":["v"],"additionalProperties":false}`,
		`{"type":"object","properties":{"kind":{"const":{"x":[1,"<&>"]}}},"required":["kind"]}`,
		`{"$defs":{"item":{"type":"object","properties":{"id":{"type":"integer","exclusiveMinimum":0}},"required":["id"]}},"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/item"},"minItems":2}},"required":["items"]}`,
		`{"definitions":{"n":{"type":"number","minimum":2.5,"exclusiveMaximum":3}},"type":"object","properties":{"n":{"$ref":"#/definitions/n"}},"required":["n"]}`,
		`{"allOf":[{"type":"object","properties":{"a":{"type":"boolean"}},"required":["a"]},{"properties":{"b":{"type":"null"}},"required":["b"]}]}`,
		`{"oneOf":[{"type":"object","properties":{"t":{"const":"x"}},"required":["t"]},{"type":"string"}]}`,
		`{"type":"array","prefixItems":[{"type":"string","format":"date-time"},{"type":"integer","multipleOf":7,"minimum":10}],"minItems":3,"items":{"type":"string","format":"email"}}`,
		`{"type":"object","properties":{"u":{"type":"string","format":"uuid"},"d":{"type":"string","format":"date"},"h":{"type":"string","format":"uri"}},"required":["u","d","h"]}`,
		`{"type":"object","minProperties":2,"properties":{"z":{"type":"integer","maximum":-3},"y":{"type":"number","exclusiveMinimum":-1,"exclusiveMaximum":-0.5}}}`,
		`{"type":"integer","minimum":0.5}`,
		`{"type":"integer","maximum":-0.5}`,
		`{"type":"number","exclusiveMinimum":100}`,
		`{"type":"string","minLength":5,"maxLength":5}`,
		`{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"array","items":{"type":"object","properties":{"r":{"enum":[3,"s"]}},"required":["r"]},"minItems":1}},"required":["q"]}},"required":["p"]}`,
	}
	for _, s := range schemas {
		text, err := instance([]byte(s))
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		t.Logf("%s\n  -> %s", s, text)
		if err := validate(t, s, text); err != nil {
			t.Errorf("%s: instance %s does not validate: %v", s, text, err)
		}
		if again, _ := instance([]byte(s)); again != text {
			t.Errorf("%s: %s, then %s", s, text, again)
		}
	}
}

// TestInstanceBounded: a schema that asks for a huge or endless instance gets a bounded one,
// and one that is not a schema is refused.
func TestInstanceBounded(t *testing.T) {
	for _, s := range []string{
		`{"type":"array","minItems":1000000000,"items":{"type":"array","minItems":1000000000}}`,
		`{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"required":["next"]}},"$ref":"#/$defs/n"}`,
		`{"$ref":"#"}`,
		`{"type":"string","minLength":1e300}`,
	} {
		text, err := instance([]byte(s))
		if err != nil || len(text) > 64<<10 || !json.Valid([]byte(text)) {
			t.Errorf("%s: %d bytes, valid %v, %v", s, len(text), json.Valid([]byte(text)), err)
		}
	}
	for _, s := range []string{`"object"`, `[1]`, `3`} {
		if _, err := instance([]byte(s)); err == nil {
			t.Errorf("%s: accepted as a schema", s)
		}
	}
}

// TestCutTokens: the pieces are never empty, join to the text, split on characters, and are
// as many as asked within [1, characters].
func TestCutTokens(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		want int
	}{
		{`{}`, 1, 1}, {`{}`, 5, 2}, {`{"a":"é😀"}`, 4, 4}, {"a😀😀", 3, 3}, {`{"k":1}`, 0, 1}, {"x", -2, 1},
	} {
		cuts := cutTokens(tc.text, tc.n)
		if len(cuts)-1 != tc.want || cuts[0] != 0 || cuts[len(cuts)-1] != len(tc.text) {
			t.Errorf("%q into %d: cuts %v, want %d pieces", tc.text, tc.n, cuts, tc.want)
			continue
		}
		var joined strings.Builder
		for i := range len(cuts) - 1 {
			piece := tc.text[cuts[i]:cuts[i+1]]
			if piece == "" || !utf8.ValidString(piece) {
				t.Errorf("%q into %d: piece %d is %q", tc.text, tc.n, i, piece)
			}
			joined.WriteString(piece)
		}
		if joined.String() != tc.text {
			t.Errorf("%q: pieces join to %q", tc.text, joined.String())
		}
	}
}
