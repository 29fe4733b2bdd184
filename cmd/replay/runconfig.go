package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/llm-replay/replay/runfolder"
)

// A run's settings as a file: every run writes DIR/run.yaml, each of its flags by name with
// the value it ran with (defaults included, so a later version's defaults cannot change a
// repeat); --config FILE takes them back, the command line winning; --resume DIR takes
// DIR/run.yaml and goes on from the kill. YAML (go.yaml.in/yaml/v3, the YAML organisation's
// maintained v3) because people edit the file by hand, and its node API keeps the flags in
// --help's order. API keys are never in it: the flags name an env variable or a file.

// runConfigHeader opens every run.yaml.
const runConfigHeader = "# replay run's settings, every flag by name (replay run --help).\n" +
	"# replay run --config THIS_FILE repeats the run (flags on the command line win);\n" +
	"# replay run --resume DIR goes on from a killed run with them.\n"

// notInConfig are the flags a run.yaml never holds: they say where the settings come from.
var notInConfig = []string{"config", "resume", "help"}

// pathFlags name files or folders: run.yaml holds them absolute when they exist, so the file
// repeats the run from any folder (a --tokenizer that is no path is kept as given).
var pathFlags = []string{"trace", "tokenizer", "out", "api-key-file", "ca-file", "calibration", "sim-arrival-log"}

// configValue is flag f's value as run.yaml holds it.
func configValue(f *pflag.Flag) string {
	v := f.Value.String()
	if !slices.Contains(pathFlags, f.Name) || v == "" {
		return v
	}
	if _, err := os.Stat(v); err != nil && f.Name != "out" {
		return v
	}
	if abs, err := filepath.Abs(v); err == nil {
		return abs
	}
	return v
}

// runConfigFlags are --config and --resume.
type runConfigFlags struct {
	config, resume string
}

func (rc *runConfigFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&rc.config, "config", "", "take every flag from this run.yaml (a run folder's: repeats that run); flags on the command line win; an unknown key is an error")
	fs.StringVar(&rc.resume, "resume", "", "go on from the killed or stopped run in DIR with its run.yaml: what finished is kept once, what was in flight at the kill is counted lost, the rest is sent from where the schedule stopped")
}

// apply sets every flag fs did not get on the command line from the run.yaml named by
// --config or --resume, and reports whether the run resumes.
func (rc *runConfigFlags) apply(fs *pflag.FlagSet) (resume bool, err error) {
	file := rc.config
	if rc.resume != "" {
		if rc.config != "" {
			return false, errors.New("--resume takes its settings from DIR/run.yaml: leave --config out")
		}
		if fs.Changed("out") {
			return false, errors.New("--resume DIR writes into DIR: leave --out out")
		}
		file = filepath.Join(rc.resume, runfolder.RunConfig)
	}
	if file == "" {
		return false, nil
	}
	if err := loadRunConfig(fs, file); err != nil {
		return false, err
	}
	if rc.resume != "" {
		if err := fs.Set("out", rc.resume); err != nil {
			return false, err
		}
	}
	return rc.resume != "", nil
}

// loadRunConfig sets fs's flags from file's keys, skipping those set on the command line.
func loadRunConfig(fs *pflag.FlagSet, file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("--config %s: %w", file, err)
	}
	if len(doc.Content) == 0 {
		return nil // an empty file sets nothing
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("--config %s: line %d: want a mapping of flag names to values", file, m.Line)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if err := setFromConfig(fs, file, k, v); err != nil {
			return err
		}
	}
	return nil
}

// setFromConfig sets the flag key k names to v: a list sets a repeatable flag once per item.
func setFromConfig(fs *pflag.FlagSet, file string, k, v *yaml.Node) error {
	f := fs.Lookup(k.Value)
	if f == nil || slices.Contains(notInConfig, k.Value) {
		return fmt.Errorf("--config %s: line %d: unknown key %q: not a flag of this command", file, k.Line, k.Value)
	}
	if fs.Changed(k.Value) {
		return nil // the command line wins
	}
	var vals []string
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Value == "" && f.Value.String() == "" {
			return nil // an empty value over an empty default sets nothing (Set could add an empty item)
		}
		vals = []string{v.Value}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return fmt.Errorf("--config %s: line %d: %s: want a list of values", file, item.Line, k.Value)
			}
			vals = append(vals, item.Value)
		}
	default:
		return fmt.Errorf("--config %s: line %d: %s: want a value or a list of values", file, v.Line, k.Value)
	}
	if len(vals) > 1 && !isList(f) {
		return fmt.Errorf("--config %s: line %d: %s takes one value, not a list", file, v.Line, k.Value)
	}
	for _, s := range vals {
		if err := fs.Set(k.Value, s); err != nil {
			return fmt.Errorf("--config %s: line %d: %s: %w", file, v.Line, k.Value, err)
		}
	}
	return nil
}

// isList reports whether f is a repeatable flag (--endpoint, --model, ...).
func isList(f *pflag.Flag) bool {
	_, ok := f.Value.(pflag.SliceValue)
	return ok
}

// writeRunConfig writes dir/run.yaml from fs: every flag but notInConfig, in --help's order.
func writeRunConfig(fs *pflag.FlagSet, dir string) error {
	m := &yaml.Node{Kind: yaml.MappingNode}
	fs.VisitAll(func(f *pflag.Flag) {
		if slices.Contains(notInConfig, f.Name) {
			return
		}
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: f.Name}
		var v *yaml.Node
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			v = &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, s := range sv.GetSlice() {
				v.Content = append(v.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: s})
			}
		} else {
			v = &yaml.Node{Kind: yaml.ScalarNode, Value: configValue(f)}
		}
		m.Content = append(m.Content, k, v)
	})
	var buf bytes.Buffer
	buf.WriteString(runConfigHeader)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("writing %s: %w", runfolder.RunConfig, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", runfolder.RunConfig, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating --out: %w", err)
	}
	return runfolder.WriteFile(filepath.Join(dir, runfolder.RunConfig), buf.Bytes())
}
