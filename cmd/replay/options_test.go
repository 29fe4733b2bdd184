package main

import (
	"strings"
	"testing"
)

// TestRunOptionsFlags: --options and --body are in --help, say that verbatim lengths are the
// engine's own, and a wrong value or a trace without logged bodies is bad input (exit 1).
func TestRunOptionsFlags(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "--help")
	help := out + errOut
	if code != 0 || !strings.Contains(help, "--options") || !strings.Contains(help, "--body") || !strings.Contains(help, "the engine's own") {
		t.Fatalf("exit %d, help:\n%s", code, help)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--options", "some"}, `--options "some"`},
		{[]string{"--body", "raw"}, `--body "raw"`},
		{[]string{"--body", "verbatim"}, "no logged body"},
		{[]string{"--body", "verbatim", "--options", "none"}, "cannot go with --options none"},
	} {
		args := append([]string{"run", "--limit", "3", "--out", t.TempDir()}, tc.args...)
		code, _, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, want 1 with %q:\n%s", tc.args, code, tc.want, errOut)
		}
	}
}
