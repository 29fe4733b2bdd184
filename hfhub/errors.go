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

// kindError is a message that is one of the kinds above without saying so.
type kindError struct {
	msg  string
	kind error
}

func (e kindError) Error() string        { return e.msg }
func (e kindError) Is(target error) bool { return target == e.kind }

// errorf is fmt.Errorf's message, of kind.
func errorf(kind error, format string, a ...any) error {
	return kindError{msg: fmt.Sprintf(format, a...), kind: kind}
}

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
			return errorf(ErrAccess, "hfhub: %s: the hub answered HTTP %d to %s: a gated or private repository (or one of no such name) needs a token: set HF_TOKEN to a token with access to it (or keep one in $HF_HOME/token)",
				what, resp.StatusCode, req)
		}
		return errorf(ErrAccess, "hfhub: %s: the hub answered HTTP %d to %s with the token from %s: request access on the repository's page, or use a token that has it",
			what, resp.StatusCode, req, h.tokenFrom)
	case code == "RevisionNotFound":
		return errorf(ErrNotFound, "hfhub: %s: the hub has no revision %q of %s",
			what, r.Revision, r.Repo)
	case code == "RepoNotFound" || resp.StatusCode == http.StatusNotFound:
		return errorf(ErrNotFound, "hfhub: %s: the hub answered HTTP %d to %s (%s)",
			what, resp.StatusCode, req, orNone(code))
	}
	return fmt.Errorf("hfhub: %s: the hub answered HTTP %d to %s", what, resp.StatusCode, req)
}

func orNone(code string) string {
	if code == "" {
		return "no such repository or file"
	}
	return code
}
