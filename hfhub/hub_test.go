package hfhub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// fakeHub answers as the hub does, by huggingface_hub's reading of it (at commit
// ee0a4510f4bc15e26cb722be2efc2bdb01383ca0: hf_api.py repo_info for the revision route,
// file_download.py get_hf_file_metadata and utils/_http.py hf_raise_for_status for the
// resolve route):
//   - GET /api/models/ORG/NAME/revision/REV: {"id", "sha"}; an unknown revision 404
//     RevisionNotFound, an unknown repository 401 RepoNotFound (the hub does not tell a
//     missing repository from a private one);
//   - HEAD and GET /ORG/NAME/resolve/COMMIT/FILE: a git file 200 with ETag "<git sha1>" and
//     X-Repo-Commit; an LFS file (lfs) a 302 to its bytes on another host (Location absolute),
//     with X-Linked-Etag "<sha256>" and X-Linked-Size; a missing file 404 EntryNotFound with
//     X-Repo-Commit; a gated repository 401 GatedRepo without the token.
type fakeHub struct {
	repo, commit string
	files        map[string][]byte
	lfs          map[string]bool
	token        string // "" for a public repository
	cdnHost      string // the host the LFS redirect names (another name of the same server)

	mu       sync.Mutex
	requests int
	cdnAuth  []string // the Authorization headers the CDN route was sent
}

func (h *fakeHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.requests++
	h.mu.Unlock()
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/cdn/"):
		h.mu.Lock()
		h.cdnAuth = append(h.cdnAuth, r.Header.Get("Authorization"))
		h.mu.Unlock()
		for _, b := range h.files {
			if s := sha256.Sum256(b); hex.EncodeToString(s[:]) == strings.TrimPrefix(p, "/cdn/") {
				w.Write(b)
				return
			}
		}
		http.NotFound(w, r)
	case p == "/api/models/"+h.repo+"/revision/main" || p == "/api/models/"+h.repo+"/revision/"+h.commit:
		if h.refuse(w, r) {
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": h.repo, "sha": h.commit})
	case strings.HasPrefix(p, "/api/models/"+h.repo+"/revision/"):
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.Error(w, `{"error":"Invalid rev id"}`, http.StatusNotFound)
	case strings.HasPrefix(p, "/"+h.repo+"/resolve/"+h.commit+"/"):
		h.resolve(w, r, strings.TrimPrefix(p, "/"+h.repo+"/resolve/"+h.commit+"/"))
	default:
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.Error(w, `{"error":"Repository not found"}`, http.StatusUnauthorized)
	}
}

// refuse answers a gated repository's 401 to a request without its token.
func (h *fakeHub) refuse(w http.ResponseWriter, r *http.Request) bool {
	if h.token == "" || r.Header.Get("Authorization") == "Bearer "+h.token {
		return false
	}
	w.Header().Set("X-Error-Code", "GatedRepo")
	w.Header().Set("X-Error-Message", "Access to model "+h.repo+" is restricted. You must have access to it and be authenticated to access it. Please log in.")
	w.WriteHeader(http.StatusUnauthorized)
	return true
}

func (h *fakeHub) resolve(w http.ResponseWriter, r *http.Request, file string) {
	if h.refuse(w, r) {
		return
	}
	w.Header().Set("X-Repo-Commit", h.commit)
	b, ok := h.files[file]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		w.Header().Set("X-Error-Message", "Entry not found")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if h.lfs[file] {
		s := sha256.Sum256(b)
		sum := hex.EncodeToString(s[:])
		w.Header().Set("X-Linked-Etag", `"`+sum+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(b)))
		w.Header().Set("ETag", `"`+gitSHA1(b)+`"`) // the pointer file's, which the client must not take
		w.Header().Set("Location", "http://"+h.cdnHost+"/cdn/"+sum)
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+gitSHA1(b)+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(b)
}

func (h *fakeHub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requests
}

func gitSHA1(b []byte) string {
	s := sha1.New()
	fmt.Fprintf(s, "blob %d\x00", len(b))
	s.Write(b)
	return hex.EncodeToString(s.Sum(nil))
}

const testCommit = "0123456789abcdef0123456789abcdef01234567"

// llama3Hub serves the llama3 tokenizer's two files as a repository, tokenizer.json in LFS.
func llama3Hub(t *testing.T, token string) (*fakeHub, string) {
	dir := testenv.Tokenizer(t, "llama3")
	h := &fakeHub{repo: "meta-llama/Meta-Llama-3-8B", commit: testCommit, files: map[string][]byte{}, lfs: map[string]bool{"tokenizer.json": true}, token: token}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		h.files[f] = b
	}
	h.files["config.json"] = []byte(`{"num_hidden_layers": 32}`)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	h.cdnHost = strings.Replace(srv.Listener.Addr().String(), "127.0.0.1", "localhost", 1)
	return h, srv.URL
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
	tj := sha256.Sum256(h.files["tokenizer.json"])
	for file, blob := range map[string]string{"tokenizer.json": hex.EncodeToString(tj[:]), "tokenizer_config.json": gitSHA1(h.files["tokenizer_config.json"])} {
		link, err := os.Readlink(filepath.Join(snap.Dir, file))
		if err != nil || link != "../../blobs/"+blob {
			t.Errorf("%s: link %q (%v), want ../../blobs/%s", file, link, err, blob)
		}
		if b, err := os.ReadFile(filepath.Join(snap.Dir, file)); err != nil || string(b) != string(h.files[file]) {
			t.Errorf("%s: the linked blob is not the file (%v)", file, err)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, ".no_exist", testCommit, "chat_template.jinja")); err != nil {
		t.Errorf("no .no_exist record of the missing optional file: %v", err)
	}
	if h.cdnAuth == nil || h.cdnAuth[0] != "" {
		t.Errorf("the LFS bytes were not fetched from the redirect's host, or with a token: %q", h.cdnAuth)
	}
	before := h.count()
	env.Offline = true
	again, err := Resolve(context.Background(), ref, env)
	if err != nil || again.Dir != snap.Dir || len(again.Downloaded) != 0 || h.count() != before {
		t.Fatalf("offline: %+v, %v, %d requests more", again, err, h.count()-before)
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
	for _, a := range h.cdnAuth {
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
	h.lfs = nil
	good := h.files["tokenizer_config.json"]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/tokenizer.json") && r.Method == http.MethodGet {
			w.Header().Set("ETag", `"`+gitSHA1(good)+`"`)
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
