package ingest

import (
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// sharedTrace finds a file of the shared public traces (see testenv.SharedTrace).
func sharedTrace(t testing.TB, name string) string { return testenv.SharedTrace(t, name) }
