package main

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

	"github.com/llm-replay/replay/sim"
)

// An https endpoint with a self-signed certificate is refused by default, with an error that
// says what to do, and accepted with its certificate as --ca-file.
func TestTLSSelfSigned(t *testing.T) {
	sc := sim.DefaultConfig()
	sc.ZeroCost = true
	srv := sim.New(sc)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	ts.StartTLS()
	defer ts.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := replayBin(t)
	trace := writeRateTrace(t, 10, 50, 4)

	code, out, stderr, _ := runAgainst(t, bin, ts.URL+"/v1", trace, 0, "--metrics-url", "none", "--max-lateness", "0")
	if code != 3 {
		t.Fatalf("self-signed, no --ca-file: exit %d, want 3:\n%s", code, stderr)
	}
	s := readRunSummary(t, out)
	msg := s.ErrorSamples["connect"]
	if s.Errors["connect"] != 10 || !strings.Contains(msg, "certificate") || !strings.Contains(msg, "--ca-file") {
		t.Fatalf("errors %v, message %q: want every request refused on its certificate, pointing at --ca-file", s.Errors, msg)
	}

	code, out, stderr, _ = runAgainst(t, bin, ts.URL+"/v1", trace, 0, "--metrics-url", "none", "--ca-file", ca, "--max-lateness", "0")
	if code != 0 {
		t.Fatalf("with --ca-file: exit %d, want 0:\n%s", code, stderr)
	}
	if s := readRunSummary(t, out); s.Requests.OK != 10 {
		t.Fatalf("with --ca-file: %d of 10 ok (%v)", s.Requests.OK, s.Errors)
	}
}
