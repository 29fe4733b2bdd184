package chat

import (
	"testing"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// TestToJSONMatchesPython: tojson prints what Python's json.dumps printed for the same
// parsed JSON and arguments (the want strings are its output): spacing, key order, duplicate
// keys, float repr, escapes with and without ensure_ascii, indents, separators, sort_keys.
func TestToJSONMatchesPython(t *testing.T) {
	for _, c := range []struct{ json, args, want string }{
		{`{"b": 1, "a": [1, 2.0, -0.0, 1e16, 1e15, 0.0001, 1e-05, 123.456, 1.5e300, -2.5e-7], "c": {}}`, ``,
			`{"b": 1, "a": [1, 2.0, -0.0, 1e+16, 1000000000000000.0, 0.0001, 1e-05, 123.456, 1.5e+300, -2.5e-07], "c": {}}`},
		{`{"b": 1, "a": [1, 2.0], "c": {}, "d": []}`, `(indent=2)`, "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2.0\n  ],\n  \"c\": {},\n  \"d\": []\n}"},
		{`{"b": "Zürich \"q\" \\ \n\t\u0001\u007f 🙂 <&>"}`, ``, "{\"b\": \"Zürich \\\"q\\\" \\\\ \\n\\t\\u0001\x7f 🙂 <&>\"}"},
		{`{"b": "Zürich \u007f 🙂"}`, `(ensure_ascii=true)`, `{"b": "Z\u00fcrich \u007f \ud83d\ude42"}`},
		{`{"z": 1, "a": {"y": 2, "b": null}}`, `(sort_keys=true, separators=[",", ":"])`, `{"a":{"b":null,"y":2},"z":1}`},
		{`{"a": 1, "a": 2, "b": 3}`, ``, `{"a": 2, "b": 3}`},
		{`[true, false, null, "x"]`, `(indent="\t")`, "[\n\ttrue,\n\tfalse,\n\tnull,\n\t\"x\"\n]"},
	} {
		v, err := decodeJSON([]byte(c.json))
		if err != nil {
			t.Fatalf("%s: %v", c.json, err)
		}
		tpl, err := parseChatTemplate(`{{ x | tojson` + c.args + ` }}`)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tpl.ExecuteToString(exec.NewContext(map[string]any{"x": v}))
		if err != nil || got != c.want {
			t.Errorf("%s | tojson%s:\n got %q, %v\nwant %q", c.json, c.args, got, err, c.want)
		}
	}
}

// TestOrderedDictMethods: items(), keys(), values(), get() and the items filter keep a JSON
// object's key order, nested objects included, where gonja's sort them.
func TestOrderedDictMethods(t *testing.T) {
	v, err := decodeJSON([]byte(`{"z": {"y": 1, "b": 2}, "a": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	src := `{% for k, v in x.items() %}{{ k }};{% endfor %}|{{ x.keys() | join(",") }}|` +
		`{% for k, v in x.get("z") | items %}{{ k }}={{ v }};{% endfor %}|{{ x.values()[1] }}|{{ x.get("q", "d") }}`
	tpl, err := parseChatTemplate(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tpl.ExecuteToString(exec.NewContext(map[string]any{"x": v}))
	if want := "z;a;|z,a|y=1;b=2;|3|d"; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

func TestPyFloat(t *testing.T) {
	for f, want := range map[float64]string{0: "0.0", 1: "1.0", 0.1: "0.1", 1e22: "1e+22", 123456789012345678: "1.2345678901234568e+17", 5e-324: "5e-324", 0.00012: "0.00012"} {
		if got := pyFloat(f); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", f, got, want)
		}
	}
}
