package hfhub

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrAccess is wrapped by the error of a repository the hub would not give without a token,
// or with this one (401 or 403).
var ErrAccess = errors.New("no access")

// ErrNotFound is wrapped by the error of a repository, revision or required file the hub does
// not have, and of one not in the cache when nothing may be fetched.
var ErrNotFound = errors.New("not found")

// refused is the error of an answer that is not the file: what the hub said and what to do.
func (h hub) refused(resp *http.Response, r Ref, file string) error {
	code, what := resp.Header.Get("X-Error-Code"), r.String()
	if file != "" {
		what += ": " + file
	}
	req := resp.Request.Method + " " + redact(resp.Request.URL.String())
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden || code == "GatedRepo":
		if h.token == "" {
			return fmt.Errorf("hfhub: %s: the hub answered HTTP %d to %s: a gated or private repository (or one of no such name) needs a token: set HF_TOKEN to a token with access to it (or keep one in $HF_HOME/token): %w",
				what, resp.StatusCode, req, ErrAccess)
		}
		return fmt.Errorf("hfhub: %s: the hub answered HTTP %d to %s with the token from %s: request access on the repository's page, or use a token that has it: %w",
			what, resp.StatusCode, req, h.tokenFrom, ErrAccess)
	case code == "RevisionNotFound":
		return fmt.Errorf("hfhub: %s: the hub has no revision %q of %s: %w", what, r.Revision, r.Repo, ErrNotFound)
	case code == "RepoNotFound" || resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("hfhub: %s: the hub answered HTTP %d to %s (%s): %w", what, resp.StatusCode, req, orNone(code), ErrNotFound)
	}
	return fmt.Errorf("hfhub: %s: the hub answered HTTP %d to %s", what, resp.StatusCode, req)
}

func orNone(code string) string {
	if code == "" {
		return "no such repository or file"
	}
	return code
}
