package ingest

import (
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// sharedTrace finds a file of the shared public traces (see testenv.SharedTrace), skipping the
// test when they are absent.
func sharedTrace(t testing.TB, name string) string {
	t.Helper() // a skip or failure names the caller's line, not this one
	return testenv.SharedTrace(t, name)
}
