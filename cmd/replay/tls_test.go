package main

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/sim"
)

// An https endpoint with a self-signed certificate is refused before the first send (exit 1,
// no request on the API's routes) with an error that says what to do, and accepted with its
// certificate as --ca-file.
func TestTLSSelfSigned(t *testing.T) {
	sc := countingSim(t, sim.DefaultConfig(), testenv.SampleTokenizer())
	sc.ZeroCost = true
	srv := sim.New(sc)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var sent atomic.Int64 // requests that reached the API's routes
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			sent.Add(1)
		}
		srv.ServeHTTP(w, r)
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	ts.StartTLS()
	defer ts.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := replayBin(t)
	trace := writeRateTrace(t, 10, 50, 4)

	code, out, stderr, _ := runAgainst(t, bin, ts.URL+"/v1", trace, 0, "--metrics-url", "none", "--max-lateness", "0", "--max-error-rate", "1")
	if code != 1 || !strings.Contains(stderr, "the endpoint's certificate does not verify (") || !strings.Contains(stderr, "pass --ca-file FILE") {
		t.Fatalf("self-signed, no --ca-file: exit %d, want 1 naming --ca-file:\n%s", code, stderr)
	}
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d requests reached the endpoint's API before the refusal, want 0", n)
	}
	if _, err := os.Stat(filepath.Join(out, "requests.parquet")); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote requests.parquet (%v)", err)
	}

	code, out, stderr, _ = runAgainst(t, bin, ts.URL+"/v1", trace, 0, "--metrics-url", "none", "--ca-file", ca, "--max-lateness", "0")
	if code != 0 {
		t.Fatalf("with --ca-file: exit %d, want 0:\n%s", code, stderr)
	}
	if s := readRunSummary(t, out); s.Requests.OK != 10 {
		t.Fatalf("with --ca-file: %d of 10 ok (%v)", s.Requests.OK, s.Errors)
	}
}
