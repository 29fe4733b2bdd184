package hfhub

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// DefaultRevision is the branch a repository is read at when the reference names none
// (huggingface_hub's constants.DEFAULT_REVISION).
const DefaultRevision = "main"

// Ref names a model repository at a revision: "Qwen/Qwen3-8B", "Qwen/Qwen3-8B@v1.0" or
// "org/name@0123...cdef" (a commit).
type Ref struct {
	Repo     string // ORG/NAME
	Revision string // a branch, tag or commit hash; DefaultRevision when none was given
}

func (r Ref) String() string {
	if r.Revision == DefaultRevision {
		return r.Repo
	}
	return r.Repo + "@" + r.Revision
}

// repoPart is one half of a repository id as the hub's validator allows it
// (huggingface_hub utils/_validators.py, validate_repo_id: word characters, '-' and '.', no
// "--" or "..", at most 96 characters in all).
var repoPart = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// commitHash is a full commit id (file_download.py's REGEX_COMMIT_HASH).
var commitHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ParseRef reads spec as a repository reference. It is false for what names a file instead:
// anything that exists on disk, a path that starts with '.', '/' or '~', or ends in ".json",
// and anything but ORG/NAME[@REVISION].
func ParseRef(spec string) (Ref, bool) {
	if spec == "" || strings.ContainsAny(spec[:1], "./~") || strings.HasSuffix(spec, ".json") {
		return Ref{}, false
	}
	if _, err := os.Stat(spec); err == nil {
		return Ref{}, false
	}
	repo, rev, hasRev := strings.Cut(spec, "@")
	if hasRev && (rev == "" || strings.Contains(rev, "..") || strings.HasPrefix(rev, "/")) {
		return Ref{}, false
	}
	org, name, ok := strings.Cut(repo, "/")
	if !ok || len(repo) > 96 || strings.Contains(repo, "--") || strings.Contains(repo, "..") {
		return Ref{}, false
	}
	if !repoPart.MatchString(org) || !repoPart.MatchString(name) || strings.HasSuffix(name, ".") {
		return Ref{}, false
	}
	if !hasRev {
		rev = DefaultRevision
	}
	return Ref{Repo: repo, Revision: rev}, true
}

// folderName is the repository's folder in the cache: "models--ORG--NAME"
// (file_download.py, repo_folder_name, with constants.REPO_ID_SEPARATOR "--").
func (r Ref) folderName() string {
	return "models--" + strings.ReplaceAll(r.Repo, "/", "--")
}

// validRevision refuses a revision that would leave refs/ as a file name.
func validRevision(rev string) error {
	for _, part := range strings.Split(rev, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("revision %q: not a branch, tag or commit", rev)
		}
	}
	return nil
}
