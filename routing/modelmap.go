package routing

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Rest is the key that maps every logged model no other key names ("*").
const Rest = "*"

// Target is what a logged model is replayed as: the served model, optionally an adapter on
// it, and the tokenizer (a path or a Hugging Face repository id) its prompts are counted by.
type Target struct {
	Model     string `yaml:"model"`
	Adapter   string `yaml:"adapter"`
	Tokenizer string `yaml:"tokenizer"`
}

// Served is the name a request to t is sent with: the adapter's, as vLLM serves an adapter
// under --lora-modules as a model of its own, else the model's.
func (t Target) Served() string {
	if t.Adapter != "" {
		return t.Adapter
	}
	return t.Model
}

// Map is a --model-map: logged model names to targets, and Rest's target for the others.
type Map struct {
	byName map[string]Target
	rest   *Target
}

// ParseMap reads a --model-map value: inline ("logged=served,...", a served name being the
// model, counted by that name as a tokenizer unless the file form says otherwise) when it
// holds "=", else a YAML file of logged names to {model, adapter, tokenizer} (or to a bare
// served name). fallback, when not empty (a given --model), maps Rest unless the map does.
func ParseMap(value, fallback string) (*Map, error) {
	m := &Map{byName: map[string]Target{}}
	var err error
	if strings.Contains(value, "=") {
		err = m.parseInline(value)
	} else {
		err = m.parseFile(value)
	}
	if err != nil {
		return nil, err
	}
	if m.rest == nil && fallback != "" {
		m.rest = &Target{Model: fallback}
	}
	return m, nil
}

// parseInline reads "logged=served,logged=served".
func (m *Map) parseInline(value string) error {
	for _, pair := range strings.Split(value, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return fmt.Errorf("--model-map: %q is not LOGGED=SERVED", pair)
		}
		if err := m.add(k, Target{Model: v}); err != nil {
			return fmt.Errorf("--model-map: %w", err)
		}
	}
	return nil
}

// parseFile reads the YAML form; every error names the file and, where yaml gives one, the line.
func (m *Map) parseFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--model-map: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("--model-map %s: %w", path, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("--model-map %s: not a mapping of logged model names to targets", path)
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		t, err := targetOf(v)
		if err == nil {
			err = m.add(k.Value, t)
		}
		if err != nil {
			return fmt.Errorf("--model-map %s:%d: key %q: %w", path, k.Line, k.Value, err)
		}
	}
	return nil
}

// targetOf is one YAML value: a bare served name or {model, adapter, tokenizer}.
func targetOf(v *yaml.Node) (Target, error) {
	var t Target
	switch v.Kind {
	case yaml.ScalarNode:
		t.Model = v.Value
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			switch k := v.Content[i].Value; k {
			case "model", "adapter", "tokenizer":
			default:
				return t, fmt.Errorf("field %q: unknown (want model, adapter, tokenizer)", k)
			}
		}
		if err := v.Decode(&t); err != nil {
			return t, err
		}
	default:
		return t, errors.New("not a served model name nor {model, adapter, tokenizer}")
	}
	if t.Model == "" {
		return t, errors.New(`field "model": missing`)
	}
	return t, nil
}

// add records one entry, refusing a name given twice.
func (m *Map) add(logged string, t Target) error {
	if logged == Rest {
		if m.rest != nil {
			return fmt.Errorf("%q given twice", Rest)
		}
		m.rest = &t
		return nil
	}
	if _, dup := m.byName[logged]; dup {
		return fmt.Errorf("%q given twice", logged)
	}
	m.byName[logged] = t
	return nil
}

// Target is the target of a logged model name, and whether the map has one.
func (m *Map) Target(logged string) (Target, bool) {
	if t, ok := m.byName[logged]; ok {
		return t, true
	}
	if m.rest != nil {
		return *m.rest, true
	}
	return Target{}, false
}

// Targets are the map's distinct targets, in a stable order (by served name).
func (m *Map) Targets() []Target {
	var out []Target
	for _, t := range m.byName {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if m.rest != nil && !slices.Contains(out, *m.rest) {
		out = append(out, *m.rest)
	}
	slices.SortFunc(out, func(a, b Target) int {
		return strings.Compare(a.Served()+"\x00"+a.Tokenizer, b.Served()+"\x00"+b.Tokenizer)
	})
	return out
}
