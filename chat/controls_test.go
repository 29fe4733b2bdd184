package chat

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"

	"github.com/llm-replay/replay/internal/testenv"
)

// renderWith parses source with the given control structures and renders it on data; a panic
// in the engine is an error, as in Renderer.Render.
func renderWith(source string, controls *exec.ControlStructureSet, data map[string]any) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	tpl, err := parseTemplate(source, controls)
	if err != nil {
		return "", err
	}
	return tpl.ExecuteToString(exec.NewContext(data))
}

// sameRender renders source on data under gonja's control structures and ours and fails if the
// text or the failure differs. It reports whether the template rendered.
func sameRender(t *testing.T, name, source string, data map[string]any) bool {
	t.Helper()
	want, wantErr := renderWith(source, builtins.ControlStructures, data)
	got, gotErr := renderWith(source, chatControls, data)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%s: gonja's error %v, ours %v", name, wantErr, gotErr)
	}
	if got != want {
		t.Fatalf("%s: rendering differs from gonja's control structures:\n got %q\nwant %q", name, got, want)
	}
	return wantErr == nil
}

// TestControlsMatchGonja holds chatControls' if and for to gonja's: Jinja snippets that use
// every loop attribute, scoping, filters, else branches, loop controls and nesting, then every
// reference model's chat template on random conversations.
func TestControlsMatchGonja(t *testing.T) {
	snippets := map[string]string{
		"loop attributes": `{% for x in xs %}{{ loop.index }}.{{ loop.index0 }}.{{ loop.revindex }}.{{ loop.revindex0 }}` +
			`.{{ loop.first }}.{{ loop.last }}.{{ loop.length }}.{{ loop.depth }}.{{ loop.depth0 }}` +
			`[{{ loop.previtem }}|{{ loop.nextitem }}]{{ loop.cycle('a', 'b', 'c') }}{{ loop.changed(x) }};{% endfor %}`,
		"unknown loop attribute": `{% for x in xs %}{{ loop.nope is defined }}{% endfor %}`,
		"nested depth":           `{% for x in xs %}{% for y in xs %}{{ loop.depth }}{{ loop.index }}{{ x }}{{ y }}{% endfor %}|{{ loop.depth }}{% endfor %}`,
		"for else":               `{% for x in empty %}{{ x }}{% else %}none{% set z = 1 %}{{ z }}{% endfor %}{{ z is defined }}`,
		"for if":                 `{% for x in xs if x is odd %}{{ x }}{{ loop.index }}{{ loop.last }}{% else %}no odd{% endfor %}`,
		"for if none":            `{% for x in xs if x > 100 %}{{ x }}{% else %}none{% endfor %}`,
		"set in if leaks":        `{% if xs %}{% set a = 'in' %}{% else %}{% set a = 'out' %}{% endif %}{{ a }}`,
		"set in elif":            `{% if false %}{% set a = 1 %}{% elif true %}{% set a = 2 %}{% set b = a + 1 %}{% endif %}{{ a }}{{ b }}`,
		"set in for stays":       `{% set a = 'before' %}{% for x in xs %}{% set a = x %}{{ a }}{% endfor %}{{ a }}`,
		"set in if in for":       `{% for x in xs %}{% if x > 1 %}{% set a = x %}{% endif %}{{ a is defined }}{% endfor %}{{ a is defined }}`,
		"namespace":              `{% set ns = namespace(n=0) %}{% for x in xs %}{% if x is odd %}{% set ns.n = ns.n + x %}{% endif %}{% endfor %}{{ ns.n }}`,
		"shadow loop var":        `{% for x in xs %}{% set x = x * 10 %}{{ x }}{% endfor %}{{ x is defined }}`,
		"break continue":         `{% for x in xs %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 4 %}{% break %}{% endif %}{{ x }}{% endfor %}`,
		"pairs":                  `{% for k, v in pairs %}{{ k }}={{ v }}{{ loop.previtem }};{% endfor %}`,
		"dict items":             `{% for k, v in d.items() %}{{ k }}:{{ v }},{% endfor %}`,
		"string":                 `{% for c in "héllo" %}{{ c }}{{ loop.index }}{% endfor %}`,
		"reverse slice":          `{% for x in xs[::-1] %}{{ x }}{{ loop.first }}{% endfor %}`,
		"outer loop in if":       `{% for x in xs %}{% if loop.first %}F{% elif loop.last %}L{% else %}{{ loop.index }}{% endif %}{% endfor %}`,
		"error in body":          `{% for x in xs %}{{ raise_exception('bad') }}{% endfor %}`,
		"error in if":            `{% if xs %}{{ raise_exception('bad') }}{% endif %}`,
		"recursive":              `{% for n in tree recursive %}{{ n.name }}{% if n.kids %}({{ loop(n.kids) }}){% endif %}{% endfor %}`,
		"if chain":               `{% for x in xs %}{% if x == 1 %}one{% elif x == 2 %}two{% elif x == 3 %}three{% else %}many{% endif %}{% endfor %}`,
		"trim whitespace": "{%- for x in xs %}\n  {%- if x is odd %}\n    {{- x }}\n  {%- else %}\n    {{ x }}\n  {% endif %}\n" +
			"{%- endfor %}\n",
	}
	data := func() map[string]any {
		return map[string]any{
			"xs":    []any{1, 2, 3, 4, 5},
			"empty": []any{},
			"pairs": []any{[]any{"a", 1}, []any{"b", 2}},
			"d":     map[string]any{"only": "one"},
			"tree": []any{
				map[string]any{"name": "a", "kids": []any{map[string]any{"name": "b"}, map[string]any{"name": "c"}}},
				map[string]any{"name": "d"},
			},
			"raise_exception": func(msg string) (string, error) { return "", fmt.Errorf("raised: %s", msg) },
		}
	}
	for name, src := range snippets {
		sameRender(t, name, src, data())
	}

	rng := rand.New(rand.NewPCG(7, 8))
	contents := []string{"", "plain words", "line one\nline two", "<think>\nwhy\n</think>\n\nanswer", "a</think>b",
		"<tool_response>r</tool_response>", "  spaced  ", "ünïcode ✓"}
	roles := []string{"system", "user", "assistant", "user", "assistant", "tool"}
	templates := map[string]string{"default": DefaultTemplate}
	for _, name := range []string{"deepseek_v3", "gemma3", "gpt4o", "gptoss", "llama2", "llama3", "llama3_1", "qwen3"} {
		tpl, err := LoadTemplate(testenv.Tokenizer(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if tpl.Source != "" {
			templates[name] = tpl.Source
		}
	}
	if len(templates) < 6 {
		t.Fatalf("only %d chat templates to compare", len(templates))
	}
	for name, src := range templates {
		rendered := 0
		for i := range 40 {
			n := 1 + rng.IntN(7)
			msgs := make([]any, n)
			var desc strings.Builder
			for j := range msgs {
				role := roles[rng.IntN(len(roles))]
				if i%2 == 0 { // half the conversations alternate as most templates require
					role = []string{"user", "assistant"}[j%2]
					if i%4 == 0 { // after a system prompt
						role = []string{"system", "user", "assistant"}[min(j, 1+(j-1)%2)]
					}
				}
				msgs[j] = tplMessage{"role": role, "content": contents[rng.IntN(len(contents))]}
				desc.WriteString(role[:1])
			}
			ct, err := NewRenderer(Template{Source: src, BOS: "<s>", EOS: "</s>"})
			if err != nil {
				t.Fatal(err)
			}
			d := maps.Clone(ct.vars) // the helpers rendering gives templates
			d["messages"], d["add_generation_prompt"] = msgs, i%3 != 0
			if sameRender(t, fmt.Sprintf("%s/%d/%s", name, i, desc.String()), src, d) {
				rendered++
			}
		}
		t.Logf("%s: %d of 40 conversations rendered", name, rendered)
		if rendered < 10 { // the alternating user-first quarter renders under every template
			t.Errorf("%s: only %d of 40 conversations rendered", name, rendered)
		}
	}
}

// FuzzControlsMatchGonja renders fuzzed templates under gonja's control structures and ours
// on fixed data: the text, or failing, must be the same.
func FuzzControlsMatchGonja(f *testing.F) {
	for _, s := range []string{
		`{% for x in xs %}{{ loop.index }}{% if x is odd %}{% set y = x %}{% endif %}{{ y }}{% endfor %}`,
		`{% for k, v in pairs if v > 1 %}{{ k }}{{ loop.last }}{% else %}-{% endfor %}`,
		`{% if xs %}{% for x in xs %}{% if loop.first %}[{% elif loop.last %}]{% endif %}{% endfor %}{% endif %}`,
		`{% for m in messages %}{% set r = m.role %}{% if r == 'user' %}{{ loop.index0 }}{{ r }}{% endif %}{% endfor %}{{ r is defined }}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// A namespace can be made to hold itself (`set ns.a = ns`), and printing it then
		// recurses in gonja until the stack overflows, which kills the fuzzing process under
		// either set; TestControlsMatchGonja covers namespaces.
		if len(src) > 400 || strings.Contains(src, "namespace") {
			return
		}
		data := func() map[string]any {
			return map[string]any{
				"xs": []any{1, 2, 3}, "pairs": []any{[]any{"a", 1}, []any{"b", 2}},
				"messages": []any{tplMessage{"role": "user", "content": "hi"}, tplMessage{"role": "assistant", "content": "yo"}},
			}
		}
		want, wantErr := renderWith(src, builtins.ControlStructures, data())
		got, gotErr := renderWith(src, chatControls, data())
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%q: gonja's error %v, ours %v", src, wantErr, gotErr)
		}
		if got != want {
			t.Fatalf("%q: got %q, gonja's control structures %q", src, got, want)
		}
	})
}
