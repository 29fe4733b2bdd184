package testenv

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Golden compares got with the golden file at path, failing t at the first line that differs,
// or writes got there when update (a test package's -update flag): the rendered pages and
// tables are held to files a person has looked at.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update in its package)", err, t.Name())
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			t.Fatalf("%s differs at line %d:\n got: %.200s\nwant: %.200s\n(-update to accept)", path, i+1, gl[i], wl[i])
		}
	}
	t.Fatalf("%s differs in length: got %d lines, want %d (-update to accept)", path, len(gl), len(wl))
}
