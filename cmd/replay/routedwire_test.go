package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// wireRequest is what the recording proxy saw of one request.
type wireRequest struct {
	model  string
	header http.Header
}

// mappedSim starts a simulator serving the map's models, each counted by its tokenizer.
func mappedSim(t *testing.T) string {
	t.Helper()
	sc := sim.DefaultConfig()
	sc.ZeroCost = true
	llama, qwen, sample := testenv.Tokenizer(t, "llama3"), testenv.Tokenizer(t, "qwen3"), testenv.SampleTokenizer()
	if err := serve(&sc, "", sample); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"big-llama": llama, "sql-lora": llama, "small-qwen": qwen, "sample-mistral": sample} {
		if err := serve(&sc, name, path); err != nil {
			t.Fatal(err)
		}
	}
	u, stop, err := sim.Listen(context.Background(), "127.0.0.1:0", sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	return u
}

// serve counts sc's own model (name "") or one more served model with the tokenizer at path.
func serve(sc *sim.Config, name, path string) error {
	tok, err := tokenizer.Load(path)
	if err != nil {
		return err
	}
	if name == "" {
		return runner.ServerCounting(path, tok, sc)
	}
	m, err := runner.SimModel(name, path, tok)
	sc.Models = append(sc.Models, m)
	return err
}

// recordingProxy forwards to target and records each POST's model and headers.
func recordingProxy(t *testing.T, target string) (string, func() []wireRequest) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	var mu sync.Mutex
	var seen []wireRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var v struct{ Model string }
			_ = json.Unmarshal(body, &v)
			mu.Lock()
			seen = append(seen, wireRequest{v.Model, r.Header.Clone()})
			mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []wireRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]wireRequest(nil), seen...)
	}
}

// TestRoutedWire: on the wire, every request of a session goes to its logged model's target
// (the adapter's name for the adapter), with its logged priority and session id, one
// affinity value per session that is not the logged id, and none of the logged
// credentials or other headers; the simulator behind counts every prompt as logged.
func TestRoutedWire(t *testing.T) {
	log, _ := routedLog(t)
	proxy, seen := recordingProxy(t, strings.TrimSuffix(mappedSim(t), "/v1"))
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--trace", log, "--format", "openai-log", "--tokenizer", testenv.SampleTokenizer(),
		"--endpoint", proxy+"/v1", "--model-map", routedMap(t), "--headers", "logged", "--affinity-header", "X-Session-Affinity",
		"--speed", "5", "--max-lateness", "none", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	served := []string{"big-llama", "small-qwen", "sample-mistral", "sql-lora"} // routedLog's names in order
	affinity := map[string]string{}
	n := 0
	for _, r := range seen() {
		sess := r.header.Get("X-Session-Id")
		if sess == "" {
			continue // the engine probe, not a logged request
		}
		n++
		var s int
		fmt.Sscanf(sess, "sess-%d", &s)
		if want := served[s%len(served)]; r.model != want {
			t.Errorf("%s went to %q, want %q", sess, r.model, want)
		}
		prio := map[bool]string{true: "high", false: "low"}[s%2 == 0]
		if got := r.header.Get("Priority"); got != prio {
			t.Errorf("%s: priority %q, want %q", sess, got, prio)
		}
		a := r.header.Get("X-Session-Affinity")
		if a == "" || a == sess || (affinity[sess] != "" && affinity[sess] != a) {
			t.Errorf("%s: affinity %q (before %q)", sess, a, affinity[sess])
		}
		affinity[sess] = a
		for k, vs := range r.header {
			if strings.Contains(strings.Join(vs, " "), sentinelKey) {
				t.Errorf("a logged credential went out in %s", k)
			}
		}
		if r.header.Get("User-Agent") == "app/1.0" {
			t.Error("a header outside the allowlist was replayed")
		}
	}
	if n != 24 || len(affinity) != 12 {
		t.Fatalf("%d logged requests on the wire in %d sessions, want 24 in 12", n, len(affinity))
	}
	if !strings.Contains(stdout, "prompt tokens exact 100.0%") || strings.Contains(stderr, "another tokenizer") {
		t.Errorf("every model's prompts counted as logged, each by the tokenizer its endpoint names:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	checkNoKey(t, out)
}
