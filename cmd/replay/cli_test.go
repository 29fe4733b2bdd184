package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the real entry point in this process with stdout and stderr captured in files
// (not pipes, so a command that writes more than a pipe holds cannot block) and no stdin.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	outF, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errF, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	code = run(args, cli{stdin: strings.NewReader(""), stdout: outF, stderr: errF})
	outF.Close()
	errF.Close()
	o, _ := os.ReadFile(outF.Name())
	e, _ := os.ReadFile(errF.Name())
	return code, string(o), string(e)
}
