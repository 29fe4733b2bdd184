package hfhub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

const testCommit = testenv.HFCommit

// llama3Hub serves the llama3 tokenizer's two files and a config.json as a repository,
// tokenizer.json in LFS (internal/testenv's HFHub answers as the hub does).
func llama3Hub(t *testing.T, token string) (*testenv.HFHub, string) {
	files := testenv.HFTokenizerFiles(t, testenv.Tokenizer(t, "llama3"))
	files["config.json"] = []byte(`{"num_hidden_layers": 32}`)
	h := testenv.NewHFHub(t, "meta-llama/Meta-Llama-3-8B", files, []string{"tokenizer.json"}, token)
	return h, h.URL
}

func testEnv(t *testing.T, endpoint string) Env {
	return Env{CacheDir: filepath.Join(t.TempDir(), "hub"), Endpoint: endpoint}
}

// From the hub: the files land in the cache as huggingface_hub lays them out, then are used
// offline without a request.
func TestDownloadIntoCacheLayout(t *testing.T) {
	h, url := llama3Hub(t, "")
	env := testEnv(t, url)
	ref, _ := ParseRef("meta-llama/Meta-Llama-3-8B")
	snap, err := Resolve(context.Background(), ref, env)
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(env.CacheDir, "models--meta-llama--Meta-Llama-3-8B")
	if snap.Dir != filepath.Join(repo, "snapshots", testCommit) || snap.Commit != testCommit {
		t.Fatalf("snapshot %+v", snap)
	}
	if want := []string{"tokenizer.json", "tokenizer_config.json", "config.json"}; strings.Join(snap.Downloaded, ",") != strings.Join(want, ",") {
		t.Errorf("downloaded %v, want %v", snap.Downloaded, want)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err != nil || string(b) != testCommit {
		t.Errorf("refs/main: %q, %v", b, err)
	}
	tj := sha256.Sum256(h.Files["tokenizer.json"])
	for file, blob := range map[string]string{"tokenizer.json": hex.EncodeToString(tj[:]), "tokenizer_config.json": testenv.GitBlobSHA1(h.Files["tokenizer_config.json"])} {
		link, err := os.Readlink(filepath.Join(snap.Dir, file))
		if err != nil || link != "../../blobs/"+blob {
			t.Errorf("%s: link %q (%v), want ../../blobs/%s", file, link, err, blob)
		}
		if b, err := os.ReadFile(filepath.Join(snap.Dir, file)); err != nil || string(b) != string(h.Files[file]) {
			t.Errorf("%s: the linked blob is not the file (%v)", file, err)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, ".no_exist", testCommit, "chat_template.jinja")); err != nil {
		t.Errorf("no .no_exist record of the missing optional file: %v", err)
	}
	if a := h.CDNAuth(); len(a) != 1 || a[0] != "" {
		t.Errorf("the LFS bytes were not fetched from the redirect's host, or with a token: %q", a)
	}
	before := h.Requests()
	env.Offline = true
	again, err := Resolve(context.Background(), ref, env)
	if err != nil || again.Dir != snap.Dir || len(again.Downloaded) != 0 || h.Requests() != before {
		t.Fatalf("offline: %+v, %v, %d requests more", again, err, h.Requests()-before)
	}
	if !strings.Contains(again.Where(), "found in the Hugging Face cache at "+snap.Dir) {
		t.Errorf("Where: %q", again.Where())
	}
}

// A gated repository without a token: the error names HF_TOKEN; with it, the files come, and
// the token never goes to the redirect's host nor into an error.
func TestGatedRepository(t *testing.T) {
	const secret = "hf_testsecret_0123456789"
	h, url := llama3Hub(t, secret)
	env := testEnv(t, url)
	ref, _ := ParseRef("meta-llama/Meta-Llama-3-8B@main")
	_, err := Resolve(context.Background(), ref, env)
	if err == nil || !errors.Is(err, ErrAccess) || !strings.Contains(err.Error(), "HF_TOKEN") || !strings.Contains(err.Error(), "401") {
		t.Fatalf("no token: %v, want a 401 naming HF_TOKEN", err)
	}
	env.token, env.TokenFrom = "hf_wrong", "HF_TOKEN"
	if _, err := Resolve(context.Background(), ref, env); err == nil || !strings.Contains(err.Error(), "with the token from HF_TOKEN") || strings.Contains(err.Error(), "hf_wrong") {
		t.Fatalf("wrong token: %v", err)
	}
	env.token = secret
	snap, err := Resolve(context.Background(), ref, env)
	if err != nil || len(snap.Downloaded) != 3 {
		t.Fatalf("with the token: %+v, %v", snap, err)
	}
	for _, a := range h.CDNAuth() {
		if a != "" {
			t.Errorf("the redirect's host was sent Authorization %q", a)
		}
	}
}

// Offline and not cached: the error names the repository, the revision and the folder looked in.
func TestOfflineMissing(t *testing.T) {
	env := testEnv(t, "http://127.0.0.1:1")
	env.Offline = true
	ref, _ := ParseRef("Qwen/Qwen3-8B@v2")
	_, err := Resolve(context.Background(), ref, env)
	for _, want := range []string{"Qwen/Qwen3-8B", "revision v2", filepath.Join(env.CacheDir, "models--Qwen--Qwen3-8B", "refs", "v2"), "HF_HUB_OFFLINE"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("%v does not wrap ErrNotFound", err)
	}
}

// An unknown revision and an unknown repository are the hub's own errors.
func TestHubNotFound(t *testing.T) {
	_, url := llama3Hub(t, "")
	env := testEnv(t, url)
	for spec, want := range map[string]string{
		"meta-llama/Meta-Llama-3-8B@nope": `no revision "nope"`,
		"nobody/nothing":                  "HTTP 401",
	} {
		ref, _ := ParseRef(spec)
		if _, err := Resolve(context.Background(), ref, env); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

// Bytes that do not match their etag are refused, and nothing is linked.
func TestEtagMismatch(t *testing.T) {
	h, url := llama3Hub(t, "")
	h.LFS = map[string]bool{}
	good := h.Files["tokenizer_config.json"]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/tokenizer.json") && r.Method == http.MethodGet {
			w.Header().Set("ETag", `"`+testenv.GitBlobSHA1(good)+`"`)
			w.Write([]byte("{}"))
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	_ = url
	env := testEnv(t, srv.URL)
	ref, _ := ParseRef("meta-llama/Meta-Llama-3-8B")
	if _, err := Resolve(context.Background(), ref, env); err == nil || !strings.Contains(err.Error(), "do not match their ETag") {
		t.Fatalf("%v, want the etag mismatch", err)
	}
}
