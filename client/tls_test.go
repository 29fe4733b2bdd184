package client

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tlsServer is a loopback https server with httptest's self-signed certificate, its
// handshake errors kept out of the test log.
func tlsServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(vllmChat(2, 0, nil))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// Certificates are verified by default; a private CA file or Insecure lets one through.
func TestTLS(t *testing.T) {
	srv := tlsServer(t)
	do := func(mut func(*Config)) Response {
		return newClient(t, srv.URL, APIChat, mut).Do(context.Background(), Request{Prompt: "x", MaxTokens: 2}, newClock())
	}
	r := do(nil)
	want := "TLS: x509: certificate signed by unknown authority (give --ca-file with the server's CA, or --insecure)"
	if r.ErrorClass != ErrTLS || r.ErrorMessage != want {
		t.Fatalf("default: %q %q", r.ErrorClass, r.ErrorMessage)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := do(func(c *Config) { c.CAFile = ca }); !r.OK() {
		t.Fatalf("CA file: %q %q", r.ErrorClass, r.ErrorMessage)
	}
	if r := do(func(c *Config) { c.Insecure = true }); !r.OK() {
		t.Fatalf("insecure: %q %q", r.ErrorClass, r.ErrorMessage)
	}
	// A trusted certificate for other names (httptest's lists 127.0.0.1 and example.com).
	host := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	r = newClient(t, host, APIChat, func(c *Config) { c.CAFile = ca }).Do(context.Background(), Request{Prompt: "x"}, newClock())
	if r.ErrorClass != ErrTLS || !strings.HasPrefix(r.ErrorMessage, "TLS: x509: certificate is valid for") ||
		!strings.HasSuffix(r.ErrorMessage, "(the certificate is for other names: connect by one it lists, or give --insecure)") {
		t.Fatalf("host name: %q %q", r.ErrorClass, r.ErrorMessage)
	}
}

// A CA file that cannot be read, or holds no certificate, fails New with the file's name.
func TestTLSBadCAFile(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(empty, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.pem"), empty} {
		_, err := New(Config{BaseURL: "https://127.0.0.1:1/v1", API: APIChat, Model: "m", CAFile: path})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("CA file %s: error %v", path, err)
		}
	}
}

// An https URL to a plain-http port fails the handshake: that is a TLS failure, not a
// connect one (the fix is the URL's scheme).
func TestTLSToPlainPort(t *testing.T) {
	srv := httptest.NewServer(vllmChat(2, 0, nil))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "https://", 1)
	r := newClient(t, u, APIChat, nil).Do(context.Background(), Request{Prompt: "x", MaxTokens: 2}, newClock())
	if r.ErrorClass != ErrTLS {
		t.Fatalf("https to a plain port: %q %q, want %q", r.ErrorClass, r.ErrorMessage, ErrTLS)
	}
}
