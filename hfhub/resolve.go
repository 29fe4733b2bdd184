package hfhub

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"time"
)

// Required and Optional are the files a tokenizer folder is made of: synth/tokenizer reads
// tokenizer.json and tokenizer_config.json (the chat template and special tokens); the others
// are fetched when the repository has them, so the folder is what the model's own tools load
// (special tokens, a chat template kept apart, the model's config with its KV shape for
// cache-sim, its generation defaults).
var (
	Required = []string{"tokenizer.json"}
	Optional = []string{"tokenizer_config.json", "special_tokens_map.json", "chat_template.jinja", "config.json", "generation_config.json",
		"preprocessor_config.json", "processor_config.json"} // the image rule's (package media)
)

// Snapshot is a repository's files at one commit, in the cache.
type Snapshot struct {
	Ref    Ref
	Commit string
	// Dir is the snapshot folder (snapshots/COMMIT), which a tokenizer is loaded from.
	Dir string
	// Downloaded are the files fetched from the hub now; none when the cache had them.
	Downloaded []string
	endpoint   string
}

// Where says where the files came from, for a line on stderr.
func (s Snapshot) Where() string {
	if len(s.Downloaded) == 0 {
		return "found in the Hugging Face cache at " + s.Dir
	}
	host := s.endpoint
	if u, err := url.Parse(s.endpoint); err == nil {
		host = u.Host
	}
	return fmt.Sprintf("downloaded from %s (%d files) into the Hugging Face cache at %s", host, len(s.Downloaded), s.Dir)
}

// Resolve finds r's tokenizer files: in the cache at env.CacheDir when it has them (nothing is
// asked of the hub then), else fetched from env.Endpoint into the cache, laid out as
// huggingface_hub lays it out; never fetched when env.Offline.
func Resolve(ctx context.Context, r Ref, env Env) (Snapshot, error) {
	return resolve(ctx, r, env, &http.Client{Timeout: 10 * time.Minute})
}

func resolve(ctx context.Context, r Ref, env Env, hc *http.Client) (Snapshot, error) {
	if err := validRevision(r.Revision); err != nil {
		return Snapshot{}, fmt.Errorf("hfhub: %s: %w", r.Repo, err)
	}
	c := newRepoCache(env.CacheDir, r)
	commit, err := c.commit(r.Revision)
	if err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{Ref: r, Commit: commit, Dir: c.snapshot(commit), endpoint: env.Endpoint}
	if commit != "" && complete(c, commit, env.Offline) {
		return snap, nil
	}
	if env.Offline {
		return Snapshot{}, offlineError(c, r, commit)
	}
	h := hub{endpoint: env.Endpoint, token: env.token, tokenFrom: env.TokenFrom, http: hc}
	if snap.Commit, err = h.commitOf(ctx, r); err != nil {
		return Snapshot{}, err
	}
	snap.Dir = c.snapshot(snap.Commit)
	if snap.Downloaded, err = fetchFiles(ctx, h, c, r, snap.Commit); err != nil {
		return Snapshot{}, err
	}
	if err := c.setRef(r.Revision, snap.Commit); err != nil {
		return Snapshot{}, err
	}
	return snap, nil
}

// complete reports whether the snapshot of commit holds the tokenizer: its required files, and
// tokenizer_config.json or the cache's note that the repository has none (offline, a
// snapshot without one is used as it is: its chat template is the default then).
func complete(c repoCache, commit string, offline bool) bool {
	for _, f := range Required {
		if !c.has(commit, f) {
			return false
		}
	}
	const cfg = "tokenizer_config.json"
	return offline || c.has(commit, cfg) || c.missing(commit, cfg)
}

// fetchFiles brings every file the snapshot lacks from the hub: each blob once (by etag), each
// linked into the snapshot; a missing optional file is noted in .no_exist, a missing
// required one is an error.
func fetchFiles(ctx context.Context, h hub, c repoCache, r Ref, commit string) ([]string, error) {
	var got []string
	for i, file := range append(append([]string{}, Required...), Optional...) {
		if c.has(commit, file) || c.missing(commit, file) {
			continue
		}
		f, err := h.metadata(ctx, r, commit, file)
		if err != nil {
			return nil, err
		}
		if f.absent {
			if i < len(Required) {
				return nil, errorf(ErrNotFound, "hfhub: %s (commit %s) has no %s: replay reads a Hugging Face fast tokenizer's tokenizer.json",
					r, commit, file)
			}
			if err := c.markMissing(commit, file); err != nil {
				return nil, err
			}
			continue
		}
		if !c.hasBlob(f.etag) {
			data, err := h.download(ctx, r, file, f)
			if err != nil {
				return nil, err
			}
			if err := c.putBlob(f.etag, data); err != nil {
				return nil, err
			}
		}
		if err := c.link(commit, file, f.etag); err != nil {
			return nil, err
		}
		got = append(got, file)
	}
	return got, nil
}

// offlineError says what is missing, where it was looked for, and how to get it.
func offlineError(c repoCache, r Ref, commit string) error {
	where := filepath.Join(c.dir, "refs", r.Revision)
	if commit != "" {
		where = filepath.Join(c.snapshot(commit), Required[0])
	}
	return errorf(ErrNotFound, "hfhub: %s (revision %s) is not in the Hugging Face cache (looked for %s) and HF_HUB_OFFLINE=1 forbids fetching it: fetch it once online (hf download %s %s tokenizer_config.json), or unset HF_HUB_OFFLINE",
		r.Repo, r.Revision, where, r.Repo, Required[0])
}
