package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/sim"
)

// hfRepo is the repository id the tests lay the llama3 tokenizer out as.
const hfRepo = "meta-llama/Meta-Llama-3-8B"

// hfSentinel is a Hugging Face token no output of a run may hold.
const hfSentinel = "hf_replay_sentinel_4c1e9a7b2d"

// hfEnv points the Hugging Face settings at a fresh cache folder (and no token, no endpoint but
// the given one), so no test reads the machine's own cache or reaches the public hub.
func hfEnv(t *testing.T, endpoint string) string {
	cache := filepath.Join(t.TempDir(), "hub")
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_HOME", t.TempDir())
	t.Setenv("HF_ENDPOINT", endpoint)
	for _, k := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"} {
		t.Setenv(k, "")
	}
	return cache
}

// variedTrace is a small trace of different prompt lengths and prefixes.
func variedTrace(t *testing.T) string {
	recs := make([]testenv.MooncakeRecord, 12)
	for i := range recs {
		recs[i] = testenv.MooncakeRecord{Timestamp: float64(i) * 20, InputLength: 40 + 37*i, OutputLength: 4, HashIDs: []int{1 + i%3}}
	}
	return testenv.WriteMooncake(t, "varied.jsonl", recs)
}

// keptPrompts runs replay against the simulator with the prompts kept and returns them by
// request id.
func keptPrompts(t *testing.T, trace, tokenizer string) (map[string]string, string) {
	t.Helper()
	out := t.TempDir()
	code, _, stderr := runCLI(t, "run", "--trace", trace, "--tokenizer", tokenizer, "--keep-prompts", "--speed", "20",
		"--max-lateness", "0", "--out", out)
	if code != 0 {
		t.Fatalf("--tokenizer %s: exit %d\n%s", tokenizer, code, stderr)
	}
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.RequestID] = r.Prompt
	}
	return got, stderr
}

// --tokenizer ORG/NAME from a cache folder the Python client laid out, offline: the same
// prompts as the folder's path gives.
func TestTokenizerFromHFCache(t *testing.T) {
	cache := hfEnv(t, "http://127.0.0.1:1")
	dir := testenv.Tokenizer(t, "llama3")
	snap := testenv.HFCache(t, cache, dir, hfRepo, testenv.HFCommit)
	t.Setenv("HF_HUB_OFFLINE", "1")
	trace := variedTrace(t)
	byPath, _ := keptPrompts(t, trace, dir)
	byRepo, stderr := keptPrompts(t, trace, hfRepo)
	if !strings.Contains(stderr, "replay: tokenizer: "+hfRepo+" found in the Hugging Face cache at "+snap) {
		t.Errorf("stderr does not say where the tokenizer was found:\n%s", stderr)
	}
	if len(byPath) != 12 || len(byRepo) != len(byPath) {
		t.Fatalf("%d and %d rows, want 12 each", len(byPath), len(byRepo))
	}
	for id, p := range byPath {
		if p == "" || byRepo[id] != p {
			t.Fatalf("request %s: the repo id's prompt differs from the folder's", id)
		}
	}
	// Not in the cache, offline: the error names the repository, the revision and the folder.
	code, _, stderr := runCLI(t, "run", "--trace", trace, "--tokenizer", "Qwen/Qwen3-8B@v1", "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "Qwen/Qwen3-8B (revision v1) is not in the Hugging Face cache (looked for "+filepath.Join(cache, "models--Qwen--Qwen3-8B")) {
		t.Errorf("offline, not cached: exit %d\n%s", code, stderr)
	}
}

// From the loopback hub: a gated repository without a token is refused naming HF_TOKEN; with
// it the files are downloaded into the cache's layout, then used offline with no request; the
// token is in no file of the run, nor its output.
func TestTokenizerFromHub(t *testing.T) {
	hub := testenv.NewHFHub(t, hfRepo, testenv.HFTokenizerFiles(t, testenv.Tokenizer(t, "llama3")), []string{"tokenizer.json"}, hfSentinel)
	cache := hfEnv(t, hub.URL)
	trace := variedTrace(t)
	code, _, stderr := runCLI(t, "run", "--trace", trace, "--tokenizer", hfRepo, "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "HF_TOKEN") || !strings.Contains(stderr, "401") {
		t.Fatalf("gated, no token: exit %d, want 1 naming HF_TOKEN:\n%s", code, stderr)
	}
	t.Setenv("HF_TOKEN", hfSentinel)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--trace", trace, "--tokenizer", hfRepo, "--speed", "20", "--max-lateness", "0", "--out", out)
	if code != 0 || !strings.Contains(stderr, "downloaded from") {
		t.Fatalf("with HF_TOKEN: exit %d\n%s", code, stderr)
	}
	repo := filepath.Join(cache, "models--meta-llama--Meta-Llama-3-8B")
	if b, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err != nil || string(b) != testenv.HFCommit {
		t.Errorf("refs/main: %q (%v)", b, err)
	}
	if link, err := os.Readlink(filepath.Join(repo, "snapshots", testenv.HFCommit, "tokenizer.json")); err != nil || !strings.HasPrefix(link, "../../blobs/") {
		t.Errorf("tokenizer.json is not a relative link into blobs/: %q (%v)", link, err)
	}
	for _, s := range []string{stdout, stderr} {
		if strings.Contains(s, hfSentinel) {
			t.Fatal("the Hugging Face token is in the run's output")
		}
	}
	checkNoSecret(t, out, hfSentinel)
	before := hub.Requests()
	t.Setenv("HF_HUB_OFFLINE", "1")
	code, _, stderr = runCLI(t, "run", "--trace", trace, "--tokenizer", hfRepo, "--speed", "20", "--max-lateness", "0", "--out", t.TempDir())
	if code != 0 || hub.Requests() != before || !strings.Contains(stderr, "found in the Hugging Face cache") {
		t.Fatalf("offline after the download: exit %d, %d requests to the hub\n%s", code, hub.Requests()-before, stderr)
	}
}

// checkNoSecret fails when any file under dir holds secret.
func checkNoSecret(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("the secret is in %s", p)
		}
		return nil
	})
}

// servedSim is the simulator behind a /v1/models that names models as vLLM does (each with
// its root), with a key it may demand, counting the requests that reached the API's routes.
type servedSim struct {
	sim    http.Handler
	models string // the /v1/models body; "" for the simulator's own
	key    string
	sent   atomic.Int64
}

func (s *servedSim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.key != "" && r.Header.Get("Authorization") != "Bearer "+s.key {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Invalid API key","type":"invalid_request_error"}}`)
		return
	}
	if r.Method == http.MethodPost {
		s.sent.Add(1)
	}
	if r.URL.Path == "/v1/models" && s.models != "" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, s.models)
		return
	}
	s.sim.ServeHTTP(w, r)
}

func startServedSim(t *testing.T, root, tokPath string) (*servedSim, string) {
	sc := countingSim(t, sim.DefaultConfig(), tokPath)
	sc.ZeroCost = true
	srv := sim.New(sc)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	body, _ := json.Marshal(map[string]any{"object": "list", "data": []map[string]any{
		{"id": sc.ModelName, "object": "model", "owned_by": "vllm", "root": root, "max_model_len": 8192}}})
	s := &servedSim{sim: srv, models: string(body)}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts.URL + "/v1"
}

// Without --tokenizer, the endpoint's /v1/models root names a cached repository: it is taken,
// and stderr says which and from where.
func TestTokenizerFromEndpoint(t *testing.T) {
	cache := hfEnv(t, "http://127.0.0.1:1")
	snap := testenv.HFCache(t, cache, testenv.Tokenizer(t, "llama3"), hfRepo, testenv.HFCommit)
	t.Setenv("HF_HUB_OFFLINE", "1")
	s, url := startServedSim(t, hfRepo, testenv.Tokenizer(t, "llama3"))
	code, _, stderr := runCLI(t, "run", "--trace", variedTrace(t), "--endpoint", url, "--model", "replay-sim", "--metrics-url", "none",
		"--checks", "none", "--speed", "20", "--max-lateness", "0", "--out", t.TempDir())
	want := "replay: tokenizer: " + hfRepo + " from the endpoint's /v1/models root, found in the Hugging Face cache at " + snap
	if code != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, want 0 and %q:\n%s", code, want, stderr)
	}
	if s.sent.Load() == 0 {
		t.Fatal("nothing was sent")
	}
	// A root that is no cached repository: the error says what was tried and what to pass.
	_, url = startServedSim(t, "Org/Not-Cached", testenv.SampleTokenizer())
	code, _, stderr = runCLI(t, "run", "--trace", variedTrace(t), "--endpoint", url, "--model", "replay-sim", "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, `"Org/Not-Cached" (the endpoint's /v1/models root)`) || !strings.Contains(stderr, "pass --tokenizer") {
		t.Fatalf("uncached root: exit %d\n%s", code, stderr)
	}
}

// Preflight: a wrong key (401) and a model the endpoint does not list stop the run before its
// first send, exit 1, naming the fix; nothing reaches the API's routes.
func TestPreflight(t *testing.T) {
	tok := testenv.SampleTokenizer()
	s, url := startServedSim(t, "", testenv.SampleTokenizer())
	s.key = "sk-right"
	t.Setenv("REPLAY_TEST_KEY", "sk-wrong")
	code, _, stderr := runCLI(t, "run", "--trace", variedTrace(t), "--endpoint", url, "--model", "replay-sim", "--tokenizer", tok,
		"--api-key-env", "REPLAY_TEST_KEY", "--max-error-rate", "1", "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "the endpoint refused the API key given (HTTP 401 on GET "+url+"/models") ||
		!strings.Contains(stderr, "--api-key-env NAME") || strings.Contains(stderr, "sk-wrong") {
		t.Errorf("wrong key: exit %d\n%s", code, stderr)
	}
	s.key = ""
	code, _, stderr = runCLI(t, "run", "--trace", variedTrace(t), "--endpoint", url, "--model", "qwen3", "--tokenizer", tok,
		"--max-error-rate", "1", "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, `model "qwen3" is not served at `+url+`: its /v1/models lists "replay-sim" (pass one with --model)`) {
		t.Errorf("unlisted model: exit %d\n%s", code, stderr)
	}
	if n := s.sent.Load(); n != 0 {
		t.Errorf("%d requests reached the API's routes, want 0", n)
	}
	// With the right model and key the run completes.
	code, _, stderr = runCLI(t, "run", "--trace", variedTrace(t), "--endpoint", url, "--model", "replay-sim", "--tokenizer", tok,
		"--metrics-url", "none", "--speed", "20", "--max-lateness", "0", "--out", t.TempDir())
	if code != 0 || s.sent.Load() == 0 {
		t.Errorf("right model: exit %d, %d sent\n%s", code, s.sent.Load(), stderr)
	}
}

// A route that answers 404 (an --endpoint without its API root's path) stops the run at the
// forcing probe, before the first measured send, naming what to check.
func TestPreflightNotFound(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	code, _, stderr := runCLI(t, "run", "--trace", variedTrace(t), "--endpoint", srv.URL+"/api", "--model", "m", "--engine", "vllm",
		"--tokenizer", testenv.SampleTokenizer(), "--max-error-rate", "1", "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "POST "+srv.URL+"/api/completions answered 404 Not Found") ||
		!strings.Contains(stderr, "it usually ends in /v1") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("%d POSTs, want the preflight's one empty request", n)
	}
}

// --dry-run: everything before the first send, then what would be sent on stdout, exit 0;
// no measured request is sent and no run file is written.
func TestDryRun(t *testing.T) {
	s, url := startServedSim(t, "", testenv.SampleTokenizer())
	var measured atomic.Int64
	inner := s.sim
	s.sim = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("X-Request-Id"); r.Method == http.MethodPost && id != "" && !strings.HasPrefix(id, "check-") {
			measured.Add(1)
		}
		inner.ServeHTTP(w, r)
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--dry-run", "--trace", variedTrace(t), "--endpoint", url, "--model", "replay-sim",
		"--tokenizer", testenv.SampleTokenizer(), "--metrics-url", "none", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"dry run: nothing was sent", ": 12 requests over", "endpoint   " + url, `model "replay-sim", engine vllm`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout does not say %q:\n%s", want, stdout)
		}
	}
	if n := measured.Load(); n != 0 {
		t.Errorf("%d measured requests sent, want 0", n)
	}
	for _, f := range []string{"requests.parquet", "summary.json", "run.yaml"} {
		if _, err := os.Stat(filepath.Join(out, f)); !os.IsNotExist(err) {
			t.Errorf("a dry run wrote %s (%v)", f, err)
		}
	}
	// A plan built as the run goes says the same window, and how it is held.
	code, stdout, stderr = runCLI(t, "run", "--dry-run", "--trace", variedTrace(t), "--tokenizer", testenv.SampleTokenizer(), "--plan-memory", "1KiB")
	if code != 0 || !strings.Contains(stdout, ": 12 requests over") || !strings.Contains(stdout, "built as the run goes") {
		t.Errorf("streamed plan: exit %d\n%s%s", code, stdout, stderr)
	}
	// Without --out it runs in a folder of its own, removed after.
	if code, stdout, stderr := runCLI(t, "run", "--dry-run", "--speed", "8"); code != 0 || !strings.Contains(stdout, "dry run: nothing was sent") {
		t.Errorf("no --out: exit %d\n%s%s", code, stdout, stderr)
	}
}

// The preflight's refusal quotes the server's answer, and a server that echoes the key in it
// does not get the key into stderr or the run's folder.
func TestPreflightKeepsKeyOut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"key %s is not allowed"}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer srv.Close()
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(sentinelKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--trace", variedTrace(t), "--endpoint", srv.URL+"/v1", "--model", "m",
		"--tokenizer", testenv.SampleTokenizer(), "--api-key-file", keyFile, "--out", out)
	if code != 1 || !strings.Contains(stderr, "key [api key] is not allowed") || strings.Contains(stderr+stdout, sentinelKey) {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	checkNoKey(t, out)
}
