package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// A server that quotes the key back in its error does not get it into the response.
func TestAPIKeyRedactedFromErrors(t *testing.T) {
	const key = "sk-redact-me-123"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"bad key %s (%s)"}}`, key, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1", API: APIChat, Model: "m", APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 1}, func() int64 { return int64(time.Since(start)) })
	if r.ErrorClass != ErrHTTP4xx || strings.Contains(r.ErrorMessage, key) || !strings.Contains(r.ErrorMessage, "[api key]") {
		t.Fatalf("class %q message %q: want http_4xx with the key redacted", r.ErrorClass, r.ErrorMessage)
	}
}
