package hfhub

import (
	"os"
	"path/filepath"
	"strings"
)

// The environment, read as huggingface_hub reads it (src/huggingface_hub/constants.py and
// utils/_auth.py at commit ee0a4510f4bc15e26cb722be2efc2bdb01383ca0).

// defaultEndpoint is the public hub (constants._HF_DEFAULT_ENDPOINT), replaced by
// $HF_ENDPOINT.
const defaultEndpoint = "https://huggingface.co"

// Env is where the cache and the hub are, from the environment.
type Env struct {
	// CacheDir is the hub cache: $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE, else
	// $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
	CacheDir string
	// Endpoint is $HF_ENDPOINT without its trailing '/', else the public hub.
	Endpoint string
	// Offline is HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) set to 1, ON, YES or TRUE: nothing is
	// fetched.
	Offline bool
	// token is $HF_TOKEN, else $HUGGING_FACE_HUB_TOKEN, else the token file ($HF_TOKEN_PATH,
	// else $HF_HOME/token); "" for none. Kept unexported: it is only ever a header.
	token string
	// TokenFrom says where the token came from, for messages ("" when there is none).
	TokenFrom string
}

// FromEnv reads Env from the process environment.
func FromEnv() Env {
	home := hfHome()
	e := Env{CacheDir: expand(os.Getenv("HF_HUB_CACHE"))}
	if e.CacheDir == "" {
		e.CacheDir = expand(os.Getenv("HUGGINGFACE_HUB_CACHE"))
	}
	if e.CacheDir == "" {
		e.CacheDir = filepath.Join(home, "hub")
	}
	e.Endpoint = strings.TrimRight(os.Getenv("HF_ENDPOINT"), "/")
	if e.Endpoint == "" {
		e.Endpoint = defaultEndpoint
	}
	e.Offline = isTrue(os.Getenv("HF_HUB_OFFLINE")) || isTrue(os.Getenv("TRANSFORMERS_OFFLINE"))
	e.token, e.TokenFrom = cleanToken(os.Getenv("HF_TOKEN")), "HF_TOKEN"
	if e.token == "" {
		e.token, e.TokenFrom = cleanToken(os.Getenv("HUGGING_FACE_HUB_TOKEN")), "HUGGING_FACE_HUB_TOKEN"
	}
	if e.token == "" {
		path := expand(os.Getenv("HF_TOKEN_PATH"))
		if path == "" {
			path = filepath.Join(home, "token")
		}
		b, _ := os.ReadFile(path) // no file is no token
		e.token, e.TokenFrom = cleanToken(string(b)), path
	}
	if e.token == "" {
		e.TokenFrom = ""
	}
	return e
}

// hfHome is $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface.
func hfHome() string {
	if h := expand(os.Getenv("HF_HOME")); h != "" {
		return h
	}
	cache := expand(os.Getenv("XDG_CACHE_HOME"))
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "huggingface")
}

// expand does what os.path.expanduser and expandvars do to these settings.
func expand(p string) string {
	p = os.ExpandEnv(p)
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	return p
}

// isTrue is constants._is_true: 1, ON, YES, TRUE in any case.
func isTrue(v string) bool {
	switch strings.ToUpper(v) {
	case "1", "ON", "YES", "TRUE":
		return true
	}
	return false
}

// cleanToken is _auth._clean_token: line breaks removed, spaces trimmed.
func cleanToken(t string) string {
	return strings.TrimSpace(strings.NewReplacer("\r", "", "\n", "").Replace(t))
}
