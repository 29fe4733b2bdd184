package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/sim"
)

func TestDetectEachEngine(t *testing.T) {
	for _, c := range []struct {
		fake    *fake
		key     string
		want    Engine
		version string
		because string // a line of the deciding evidence
	}{
		{vllmFake(false), "", VLLM, "0.11.0", `owned_by "vllm"`},
		{sglangFake(false), "", SGLang, "0.4.6.post1", `owned_by "sglang"`},
		{tgiFake(), "", TGI, "3.0.1", `router "text-generation-router"`},
		{trtllmFake(), "", TRTLLM, "1.1.0", "JSON iteration stats"},
		{llamacppFake(), "", LlamaCpp, "b6000-1a2b3c4d", `owned_by "llamacpp"`},
		{ollamaFake(), "", Ollama, "0.17.4", `"Ollama is running"`},
		{openaiFake("sk-test"), "sk-test", OpenAI, "", "header Openai-Version: 2020-10-01"},
		{genericFake(), "", Generic, "", ""},
	} {
		t.Run(string(c.want), func(t *testing.T) {
			srv := serve(t, c.fake)
			d, err := Detect(context.Background(), WithBearer(srv.Client(), c.key), srv.URL+"/v1")
			if err != nil {
				t.Fatal(err)
			}
			if d.Engine != c.want || d.Version != c.version {
				t.Fatalf("detected %s %q, want %s %q\n%s", d.Engine, d.Version, c.want, c.version, strings.Join(d.Evidence, "\n"))
			}
			t.Log(d)
			if len(d.Evidence) != len(probes) {
				t.Fatalf("%d lines of evidence for %d probes: %q", len(d.Evidence), len(probes), d.Evidence)
			}
			if !strings.Contains(d.String(), c.because) {
				t.Fatalf("%s does not give %q as a reason", d, c.because)
			}
		})
	}
}

// TestDetectSimulator: replay's own simulator serves vLLM's metric names and takes vLLM's
// forcing fields, so it is detected as vLLM.
func TestDetectSimulator(t *testing.T) {
	url, stop, err := sim.Listen(context.Background(), "127.0.0.1:0", sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	d, err := Detect(context.Background(), nil, url+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != VLLM {
		t.Fatalf("%s\n%s", d, strings.Join(d.Evidence, "\n"))
	}
}

// TestDetectFailedProbesAreEvidence: a server that refuses every probe gives Generic, each
// failure a line, and no error; a probe that hangs is cut off by its timeout.
func TestDetectFailedProbesAreEvidence(t *testing.T) {
	old := probeTimeout
	probeTimeout = 100 * time.Millisecond
	defer func() { probeTimeout = old }()
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		}
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	defer srv.Close()
	defer close(hang)
	start := time.Now()
	d, err := Detect(context.Background(), srv.Client(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("detection took %v with a %v probe timeout", took, probeTimeout)
	}
	joined := strings.Join(d.Evidence, "\n")
	if d.Engine != Generic || !strings.Contains(joined, "GET /metrics: no answer in time") || !strings.Contains(joined, "GET /info: HTTP 500") {
		t.Fatalf("%s\n%s", d, joined)
	}
}

func TestDetectRefusedConnection(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	d, err := Detect(context.Background(), nil, url+"/v1")
	if err != nil || d.Engine != Generic || !strings.Contains(d.Evidence[0], "GET /v1/models: ") {
		t.Fatalf("%+v, %v", d, err)
	}
}

func TestDetectErrors(t *testing.T) {
	if _, err := Detect(context.Background(), nil, "localhost:8000"); err == nil {
		t.Error("no error for a URL without a scheme")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv := serve(t, vllmFake(false))
	if _, err := Detect(ctx, nil, srv.URL); err == nil {
		t.Error("no error for a cancelled context")
	}
}

// TestDetectTie: votes that tie are broken in All's order, and the tie is evidence.
func TestDetectTie(t *testing.T) {
	d := decide([]finding{
		{evidence: "a", votes: map[Engine]int{SGLang: 3}},
		{evidence: "b", votes: map[Engine]int{VLLM: 3}},
	})
	if d.Engine != VLLM || !strings.Contains(d.Evidence[len(d.Evidence)-1], "tie: vllm and sglang") {
		t.Fatalf("%+v", d)
	}
}

func TestServerRoot(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8000/v1":    "http://127.0.0.1:8000",
		"http://127.0.0.1:8000/v1/":   "http://127.0.0.1:8000",
		"http://127.0.0.1:8000":       "http://127.0.0.1:8000",
		"https://gw.example/llm/v1":   "https://gw.example/llm",
		"http://host:1/openai/v1beta": "http://host:1/openai/v1beta",
	} {
		if got, err := ServerRoot(in); err != nil || got != want {
			t.Errorf("ServerRoot(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://x/v1", "http://", "127.0.0.1:8000"} {
		if _, err := ServerRoot(bad); err == nil {
			t.Errorf("ServerRoot(%q): no error", bad)
		}
	}
}

func TestWithBearerKeepsTheCallersRequest(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Get("Authorization") }))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	resp, err := WithBearer(srv.Client(), "k").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got != "Bearer k" || req.Header.Get("Authorization") != "" {
		t.Fatalf("server saw %q; the caller's request has %q", got, req.Header.Get("Authorization"))
	}
	if WithBearer(srv.Client(), "") != srv.Client() {
		t.Error("an empty key wrapped the client")
	}
}
