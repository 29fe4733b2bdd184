package checks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llm-replay/replay/checkresult"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schema is a compiled JSON Schema of a probe's own declaring, with its text for the request.
type schema struct {
	text     string
	compiled *jsonschema.Schema
}

// noLoader refuses every URL: the probes' schemas are self-contained, and validating an
// answer must never fetch anything.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("checks: schemas are self-contained; not loading %s", url)
}

// compile compiles a schema under draft 2020-12 (what OpenAI's structured outputs and tool
// parameters follow).
func compile(name, text string) (schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return schema{}, fmt.Errorf("checks: schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return schema{}, fmt.Errorf("checks: schema %s: %w", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return schema{}, fmt.Errorf("checks: schema %s: %w", name, err)
	}
	return schema{text: text, compiled: sch}, nil
}

// mustCompile is compile for the package's constant schemas, which a test compiles.
func mustCompile(name, text string) schema {
	s, err := compile(name, text)
	if err != nil {
		panic(err)
	}
	return s
}

// errNotJSON is an answer that does not parse as JSON at all.
var errNotJSON = errors.New("not JSON")

// validate parses text as JSON and validates it; the error says which of the two failed, in
// one line.
func (s schema) validate(text string) error {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return fmt.Errorf("%w: %v", errNotJSON, err)
	}
	if err := s.compiled.Validate(v); err != nil {
		return fmt.Errorf("does not fit the schema (%s)", violations(err))
	}
	return nil
}

// violations is a validation error's list of violations in one line, without its heading
// (which only names the schema's in-memory URL).
func violations(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) > 1 && strings.HasPrefix(lines[0], "jsonschema validation failed") {
		lines = lines[1:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(l), "- ")
	}
	return checkresult.Cut(strings.Join(lines, "; "), 240)
}
