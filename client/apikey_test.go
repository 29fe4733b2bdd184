package client

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAPIKeyFromEnv(t *testing.T) {
	t.Setenv("REPLAY_TEST_KEY", "  sk-abc\n")
	if k, err := APIKeyFromEnv("REPLAY_TEST_KEY"); err != nil || k != "sk-abc" {
		t.Fatalf("%q %v", k, err)
	}
	t.Setenv("REPLAY_TEST_EMPTY", " \n")
	if _, err := APIKeyFromEnv("REPLAY_TEST_EMPTY"); err == nil || !strings.Contains(err.Error(), "REPLAY_TEST_EMPTY") {
		t.Fatalf("err %v", err)
	}
}

func TestAPIKeyFromFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "key")
	if err := os.WriteFile(p, []byte("sk-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := APIKeyFromFile(p); err != nil || k != "sk-file" {
		t.Fatalf("%q %v", k, err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n\t"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := APIKeyFromFile(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Fatalf("err %v", err)
	}
	if _, err := APIKeyFromFile(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("err %v", err)
	}
}
