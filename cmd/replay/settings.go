package main

import (
	"errors"
	"strings"

	"github.com/llm-replay/replay/runner"
)

// settingFlags is the flag that sets each runner.Config setting a run can refuse, so that the
// message names what was typed rather than the library's field.
var settingFlags = map[string]string{
	"Out":      "--out",
	"Retries":  "--retries",
	"Progress": "--progress",
	"Checks":   "--checks",
	"Probe":    "--probe",
	"Engine":   "--engine",
	"API":      "--api",
	"Resume":   "--resume",
}

// flagError is an error whose text names a flag where the library named a setting; it
// unwraps to the original, so exit codes still apply.
type flagError struct {
	text string
	err  error
}

func (e *flagError) Error() string { return e.text }
func (e *flagError) Unwrap() error { return e.err }

// flagNamed rewrites the runner.SettingError in err's chain to name its flag.
func flagNamed(err error) error {
	var se *runner.SettingError
	if !errors.As(err, &se) {
		return err
	}
	flag, ok := settingFlags[se.Setting]
	if !ok {
		return err
	}
	return &flagError{text: strings.Replace(err.Error(), se.Error(), flag+" "+se.Problem, 1), err: err}
}
