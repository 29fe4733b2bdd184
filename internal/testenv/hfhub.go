package testenv

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// HFCommit is the commit the test repositories are at.
const HFCommit = "0123456789abcdef0123456789abcdef01234567"

// HFCache lays a tokenizer folder's tokenizer.json and tokenizer_config.json out under
// cacheDir as huggingface_hub's hf_hub_download does (src/huggingface_hub/file_download.py at
// commit ee0a4510f4bc15e26cb722be2efc2bdb01383ca0: hf_hub_download's docstring,
// _create_symlink, _cache_commit_hash_for_specific_revision): each file's bytes in
// models--ORG--NAME/blobs/ named by its git blob sha1, snapshots/COMMIT/FILE a relative
// symlink to it, refs/main holding the commit. It returns the snapshot folder.
func HFCache(t testing.TB, cacheDir, tokenizerDir, repo, commit string) string {
	t.Helper()
	root := filepath.Join(cacheDir, "models--"+strings.ReplaceAll(repo, "/", "--"))
	snap := filepath.Join(root, "snapshots", commit)
	for _, dir := range []string{filepath.Join(root, "blobs"), filepath.Join(root, "refs"), snap} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(tokenizerDir, f))
		if err != nil {
			t.Fatal(err)
		}
		blob := GitBlobSHA1(b)
		if err := os.WriteFile(filepath.Join(root, "blobs", blob), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", "..", "blobs", blob), filepath.Join(snap, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "refs", "main"), []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
	return snap
}

// GitBlobSHA1 is git's object id of a file's bytes, the ETag the hub gives a file kept in git.
func GitBlobSHA1(b []byte) string {
	s := sha1.New()
	fmt.Fprintf(s, "blob %d\x00", len(b))
	s.Write(b)
	return hex.EncodeToString(s.Sum(nil))
}

// HFHub is a loopback server that answers as the Hugging Face hub does for one model
// repository, by huggingface_hub's reading of it (at commit
// ee0a4510f4bc15e26cb722be2efc2bdb01383ca0: hf_api.py repo_info for the revision route,
// file_download.py get_hf_file_metadata and utils/_http.py hf_raise_for_status for the
// resolve route):
//   - GET /api/models/ORG/NAME/revision/REV: {"id", "sha"}; an unknown revision 404
//     RevisionNotFound, an unknown repository 401 RepoNotFound (the hub does not tell a
//     missing repository from a private one);
//   - HEAD and GET /ORG/NAME/resolve/COMMIT/FILE: a git file 200 with ETag "<git sha1>" and
//     X-Repo-Commit; an LFS file a 302 to its bytes on another host name of this server
//     (Location absolute, as a CDN's), with X-Linked-Etag "<sha256>" and X-Linked-Size; a
//     missing file 404 EntryNotFound with X-Repo-Commit; a gated repository 401 GatedRepo to
//     a request without its token.
type HFHub struct {
	URL          string
	Repo, Commit string
	Files        map[string][]byte
	LFS          map[string]bool
	Token        string // "" for a public repository
	cdnHost      string

	mu       sync.Mutex
	requests int
	cdnAuth  []string
}

// NewHFHub serves repo at HFCommit with files (the LFS ones redirected), gated by token when
// it is not "".
func NewHFHub(t testing.TB, repo string, files map[string][]byte, lfs []string, token string) *HFHub {
	h := &HFHub{Repo: repo, Commit: HFCommit, Files: files, LFS: map[string]bool{}, Token: token}
	for _, f := range lfs {
		h.LFS[f] = true
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	h.URL = srv.URL
	h.cdnHost = strings.Replace(srv.Listener.Addr().String(), "127.0.0.1", "localhost", 1)
	return h
}

// Requests is how many requests the hub was sent.
func (h *HFHub) Requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requests
}

// CDNAuth are the Authorization headers the redirect's host was sent, one a request.
func (h *HFHub) CDNAuth() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.cdnAuth...)
}

func (h *HFHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.requests++
	h.mu.Unlock()
	p, api := r.URL.Path, "/api/models/"+h.Repo+"/revision/"
	switch {
	case strings.HasPrefix(p, "/cdn/"):
		h.cdn(w, r)
	case p == api+"main" || p == api+h.Commit:
		if !h.refuse(w, r) {
			json.NewEncoder(w).Encode(map[string]any{"id": h.Repo, "sha": h.Commit})
		}
	case strings.HasPrefix(p, api):
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.Error(w, `{"error":"Invalid rev id"}`, http.StatusNotFound)
	case strings.HasPrefix(p, "/"+h.Repo+"/resolve/"+h.Commit+"/"):
		h.resolve(w, r, strings.TrimPrefix(p, "/"+h.Repo+"/resolve/"+h.Commit+"/"))
	default:
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.Error(w, `{"error":"Repository not found"}`, http.StatusUnauthorized)
	}
}

// cdn serves an LFS file's bytes by their sha256, as the hub's storage does behind its redirect.
func (h *HFHub) cdn(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.cdnAuth = append(h.cdnAuth, r.Header.Get("Authorization"))
	h.mu.Unlock()
	for _, b := range h.Files {
		if s := sha256.Sum256(b); hex.EncodeToString(s[:]) == strings.TrimPrefix(r.URL.Path, "/cdn/") {
			w.Write(b)
			return
		}
	}
	http.NotFound(w, r)
}

// refuse answers a gated repository's 401 to a request without its token.
func (h *HFHub) refuse(w http.ResponseWriter, r *http.Request) bool {
	if h.Token == "" || r.Header.Get("Authorization") == "Bearer "+h.Token {
		return false
	}
	w.Header().Set("X-Error-Code", "GatedRepo")
	w.Header().Set("X-Error-Message", "Access to model "+h.Repo+" is restricted. You must have access to it and be authenticated to access it. Please log in.")
	w.WriteHeader(http.StatusUnauthorized)
	return true
}

func (h *HFHub) resolve(w http.ResponseWriter, r *http.Request, file string) {
	if h.refuse(w, r) {
		return
	}
	w.Header().Set("X-Repo-Commit", h.Commit)
	b, ok := h.Files[file]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		w.Header().Set("X-Error-Message", "Entry not found")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if h.LFS[file] {
		s := sha256.Sum256(b)
		sum := hex.EncodeToString(s[:])
		w.Header().Set("X-Linked-Etag", `"`+sum+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(b)))
		w.Header().Set("ETag", `"`+GitBlobSHA1([]byte("pointer "+sum))+`"`) // the pointer file's, not the bytes'
		w.Header().Set("Location", "http://"+h.cdnHost+"/cdn/"+sum)
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+GitBlobSHA1(b)+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(b)
}

// HFTokenizerFiles are a tokenizer folder's two files, as a repository's files.
func HFTokenizerFiles(t testing.TB, dir string) map[string][]byte {
	out := map[string][]byte{}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	return out
}
