package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llm-replay/replay/checks"
	"github.com/llm-replay/replay/trace"
)

// SettingError is a Config setting the run refuses, named as Config's field so that a
// command can say which of its own flags it was (cmd/replay maps Setting to a flag).
type SettingError struct {
	Setting string // Config's field, e.g. "Out", "Retries", "Progress"
	Problem string // what is wrong with its value, e.g. `"x": want auto, plain or json`
}

func (e *SettingError) Error() string { return "Config." + e.Setting + " " + e.Problem }

// Validate reports the first setting of c the run cannot start with. Run calls it before
// anything else; the zero value of a setting is its default and always valid.
func (c Config) Validate() error {
	if c.Out == "" {
		return &SettingError{"Out", "is required"}
	}
	switch c.Progress {
	case "", ProgressAuto, ProgressPlain, ProgressJSON:
	default:
		return &SettingError{"Progress", fmt.Sprintf("%q: want auto, plain or json", c.Progress)}
	}
	if c.Client.API != "" && !slices.Contains(trace.APIs, c.Client.API) {
		return &SettingError{"API", fmt.Sprintf("%q: want one of %s", c.Client.API, strings.Join(trace.APIs, ", "))}
	}
	if c.Retries < 0 {
		return &SettingError{"Retries", fmt.Sprintf("%d: want 0 or more", c.Retries)}
	}
	if c.Checks != "" && c.Checks != ChecksAuto {
		if _, err := checks.Names(c.Checks); err != nil {
			return &SettingError{"Checks", fmt.Sprintf("%q: want %s", c.Checks, strings.Join(ChecksLevels, ", "))}
		}
	}
	if c.Probe != "" && c.Probe != ProbeAuto && c.Probe != ProbeNone {
		return &SettingError{"Probe", fmt.Sprintf("%q: want auto or none", c.Probe)}
	}
	if c.Resume && len(c.Endpoints) > 1 {
		return &SettingError{"Resume", "of a paired run: not supported yet (resume each endpoint's run on its own)"}
	}
	if c.Resume && c.Schedule.Shards > 1 {
		return &SettingError{"Resume", "of a shard: not supported yet (run the shard again)"}
	}
	if c.Engine != "" && CheckEngine(c.Engine) != nil {
		return &SettingError{"Engine", fmt.Sprintf("%q: want one of %s", c.Engine, strings.Join(EngineNames(), ", "))}
	}
	return nil
}
