package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Run refuses a bad setting first, naming it, before it creates the output folder.
func TestRunValidatesFirst(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	_, err := Run(context.Background(), Config{Out: out, Retries: -1})
	var se *SettingError
	if !errors.As(err, &se) || se.Setting != "Retries" || err.Error() != "Config.Retries -1: want 0 or more" {
		t.Fatalf("got %v, want the Retries setting named", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the output folder was created before the settings were checked: %v", err)
	}
	if err := (Config{Out: out, Progress: ProgressJSON, Checks: "all", Engine: "vllm"}).Validate(); err != nil {
		t.Errorf("valid settings refused: %v", err)
	}
}
