package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedTrace finds a file of the shared public traces: $REPLAY_SHARED/traces, or a
// shared/traces folder beside the repository (the layout here and in CI).
func sharedTrace(t testing.TB, name string) string {
	t.Helper()
	if d := os.Getenv("REPLAY_SHARED"); d != "" {
		p := filepath.Join(d, "traces", name)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("REPLAY_SHARED=%s but %s is missing: %v", d, p, err)
		}
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "traces", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("shared trace %s not found: put the shared folder (with traces/) beside the repository or set REPLAY_SHARED", name)
		}
		dir = parent
	}
}
