package hfhub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	dir := t.TempDir()
	local := filepath.Join(dir, "org", "name")
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for spec, want := range map[string]string{
		"Qwen/Qwen3-8B":            "Qwen/Qwen3-8B@main",
		"Qwen/Qwen3-8B@v1.0":       "Qwen/Qwen3-8B@v1.0",
		"meta-llama/Llama-3.1-8B":  "meta-llama/Llama-3.1-8B@main",
		"org/name":                 "", // a folder that exists here stays a path
		"gpt2":                     "", // one segment: a file name
		"./Qwen/Qwen3-8B":          "",
		"/models/Qwen3-8B":         "",
		"~/Qwen3-8B":               "",
		"models/tokenizer.json":    "",
		"a--b/c":                   "",
		"a/b/c":                    "",
		"a/../b":                   "",
		"Qwen/Qwen3-8B@":           "",
		"Qwen/Qwen3-8B@../x":       "",
		"":                         "",
		"Qwen/Qwen 3":              "",
		"Qwen/Qwen3-8B@refs/pr/1":  "Qwen/Qwen3-8B@refs/pr/1",
		"Qwen/Qwen3-8B@0123456789": "Qwen/Qwen3-8B@0123456789",
	} {
		r, ok := ParseRef(spec)
		got := ""
		if ok {
			got = r.Repo + "@" + r.Revision
		}
		if got != want {
			t.Errorf("ParseRef(%q) = %q, want %q", spec, got, want)
		}
	}
}

// FuzzParseRef: no input panics, and what is taken is a repository the cache can name: one
// folder name, ORG/NAME of the hub's characters (seeds also in testdata/fuzz/FuzzParseRef).
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"Qwen/Qwen3-8B", "a/b@main", "x/y@refs/pr/1", "../a", "a--b/c", "a/b@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		r, ok := ParseRef(spec)
		if !ok {
			return
		}
		name := r.folderName()
		if filepath.Base(name) != name || strings.Contains(name, "..") || strings.Count(r.Repo, "/") != 1 || r.Revision == "" {
			t.Errorf("%q: taken as %+v, folder %q", spec, r, name)
		}
		if !repoPart.MatchString(strings.ReplaceAll(r.Repo, "/", "_")) {
			t.Errorf("%q: repository %q has characters the hub does not allow", spec, r.Repo)
		}
	})
}

func TestFromEnv(t *testing.T) {
	home := t.TempDir()
	for _, k := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "HF_ENDPOINT", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	if e := FromEnv(); e.CacheDir != filepath.Join(home, ".cache", "huggingface", "hub") || e.Endpoint != defaultEndpoint || e.Offline || e.token != "" {
		t.Errorf("defaults: %+v", e)
	}
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "xdg"))
	if e := FromEnv(); e.CacheDir != filepath.Join(home, "xdg", "huggingface", "hub") {
		t.Errorf("XDG_CACHE_HOME: %s", e.CacheDir)
	}
	t.Setenv("HF_HOME", filepath.Join(home, "hf"))
	if err := os.MkdirAll(filepath.Join(home, "hf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "hf", "token"), []byte("hf_fromfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:9/")
	t.Setenv("HF_HUB_OFFLINE", "yes")
	e := FromEnv()
	if e.CacheDir != filepath.Join(home, "hf", "hub") || e.token != "hf_fromfile" || e.TokenFrom != filepath.Join(home, "hf", "token") || e.Endpoint != "http://127.0.0.1:9" || !e.Offline {
		t.Errorf("HF_HOME: %+v", e)
	}
	t.Setenv("HF_TOKEN", " hf_env ")
	t.Setenv("HF_HUB_CACHE", "~/elsewhere")
	if e := FromEnv(); e.token != "hf_env" || e.TokenFrom != "HF_TOKEN" || e.CacheDir != filepath.Join(home, "elsewhere") {
		t.Errorf("HF_TOKEN, HF_HUB_CACHE: %+v", e)
	}
}
