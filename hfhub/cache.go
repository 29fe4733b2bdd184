package hfhub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// repoCache is one repository's folder in the cache, as huggingface_hub lays it out
// (file_download.py at commit ee0a4510f4bc15e26cb722be2efc2bdb01383ca0, hf_hub_download's
// docstring and _hf_hub_download_to_cache_dir):
//
//	models--ORG--NAME/
//	  refs/main                 the commit hash "main" last resolved to
//	  blobs/ETAG                each file's bytes, named by the hub's ETag
//	  snapshots/COMMIT/FILE     -> ../../blobs/ETAG (a relative symlink, _create_symlink)
//	  .no_exist/COMMIT/FILE     an empty file: the repository has no FILE at COMMIT
type repoCache struct {
	dir string
}

func newRepoCache(cacheDir string, r Ref) repoCache {
	return repoCache{dir: filepath.Join(cacheDir, r.folderName())}
}

// commit is the commit rev names in the cache: rev itself when it is a commit hash, else what
// refs/REV holds; "" when the cache has not resolved it.
func (c repoCache) commit(rev string) (string, error) {
	if commitHash.MatchString(rev) {
		return rev, nil
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "refs", filepath.FromSlash(rev)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("hfhub: reading the cache's ref: %w", err)
	}
	h := strings.TrimSpace(string(b))
	if !commitHash.MatchString(h) {
		return "", fmt.Errorf("hfhub: %s: %q is not a commit hash", filepath.Join(c.dir, "refs", rev), h)
	}
	return h, nil
}

// snapshot is the folder of commit's files.
func (c repoCache) snapshot(commit string) string {
	return filepath.Join(c.dir, "snapshots", commit)
}

// has reports whether the snapshot of commit holds file (a symlink is followed: a link to a
// missing blob is no file).
func (c repoCache) has(commit, file string) bool {
	st, err := os.Stat(filepath.Join(c.snapshot(commit), file))
	return err == nil && st.Mode().IsRegular()
}

// missing reports whether the cache knows the repository has no file at commit.
func (c repoCache) missing(commit, file string) bool {
	_, err := os.Stat(filepath.Join(c.dir, ".no_exist", commit, file))
	return err == nil
}

// hasBlob reports whether the blob of etag is already here (shared by every snapshot).
func (c repoCache) hasBlob(etag string) bool {
	st, err := os.Stat(c.blob(etag))
	return err == nil && st.Mode().IsRegular()
}

func (c repoCache) blob(etag string) string { return filepath.Join(c.dir, "blobs", etag) }

// putBlob writes a blob through a temporary file beside it, renamed into place, so no reader
// ever sees a part of one.
func (c repoCache) putBlob(etag string, data []byte) error {
	dir := filepath.Join(c.dir, "blobs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("hfhub: %w", err)
	}
	f, err := os.CreateTemp(dir, etag+".*.incomplete")
	if err != nil {
		return fmt.Errorf("hfhub: %w", err)
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), c.blob(etag))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("hfhub: writing %s: %w", c.blob(etag), err)
	}
	return nil
}

// link points snapshots/COMMIT/FILE at its blob with a path relative to the snapshot's
// folder, as _create_symlink does, so the cache can be moved whole.
func (c repoCache) link(commit, file, etag string) error {
	dst := filepath.Join(c.snapshot(commit), file)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("hfhub: %w", err)
	}
	rel, err := filepath.Rel(filepath.Dir(dst), c.blob(etag))
	if err != nil {
		return fmt.Errorf("hfhub: %w", err)
	}
	_ = os.Remove(dst) // a stale link to another blob is replaced
	err = os.Symlink(rel, dst)
	if errors.Is(err, fs.ErrExist) {
		if cur, rerr := os.Readlink(dst); rerr == nil && cur == rel {
			return nil // another process linked it meanwhile, to the same blob
		}
	}
	if err != nil {
		return fmt.Errorf("hfhub: linking %s: %w", dst, err)
	}
	return nil
}

// markMissing records that the repository has no file at commit (.no_exist, as
// _get_metadata_or_catch_error records an EntryNotFound), so no tool asks again.
func (c repoCache) markMissing(commit, file string) error {
	p := filepath.Join(c.dir, ".no_exist", commit, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("hfhub: %w", err)
	}
	return os.WriteFile(p, nil, 0o644)
}

// setRef writes refs/REV = commit when rev is a branch or tag, through a temporary file renamed
// into place (_cache_commit_hash_for_specific_revision).
func (c repoCache) setRef(rev, commit string) error {
	if rev == commit {
		return nil
	}
	p := filepath.Join(c.dir, "refs", filepath.FromSlash(rev))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("hfhub: %w", err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(commit), 0o644); err != nil {
		return fmt.Errorf("hfhub: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("hfhub: %w", err)
	}
	return nil
}
