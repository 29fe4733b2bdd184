package hfhub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// The hub's download protocol, as huggingface_hub speaks it (at commit
// ee0a4510f4bc15e26cb722be2efc2bdb01383ca0):
//   - hf_api.py, repo_info: GET {endpoint}/api/models/{repo}/revision/{quote(revision, safe='')}
//     answers the repository's info, whose "sha" is the commit the revision is at;
//   - file_download.py, hf_hub_url and constants.HUGGINGFACE_CO_URL_TEMPLATE:
//     {endpoint}/{repo}/resolve/{revision}/{filename};
//   - file_download.py, get_hf_file_metadata: a HEAD of that URL, following only relative
//     redirects (a renamed repository); the commit is X-Repo-Commit, the etag X-Linked-Etag
//     (a file kept in LFS, whose answer is a redirect to where its bytes are) or ETag,
//     normalized by _normalize_etag (W/ and quotes dropped); the bytes are then got from
//     Location, or the URL itself;
//   - utils/_http.py, hf_raise_for_status: X-Error-Code EntryNotFound (a file the repository
//     does not have), RevisionNotFound, RepoNotFound, GatedRepo; a 401 for a private or gated
//     repository asked without a token (or one of no such name), 403 for a token without
//     access.

// maxFile bounds one downloaded file: a tokenizer.json is tens of megabytes at most.
const maxFile = 1 << 30

// hub is the hub's HTTP side for one lookup.
type hub struct {
	endpoint  string
	token     string
	tokenFrom string
	http      *http.Client
}

// revisionAPI answers the commit a revision is at.
func (h hub) commitOf(ctx context.Context, r Ref) (string, error) {
	u := h.endpoint + "/api/models/" + r.Repo + "/revision/" + url.PathEscape(r.Revision)
	resp, err := h.do(ctx, http.MethodGet, u, true)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", h.refused(resp, r, "")
	}
	var info struct {
		SHA string `json:"sha"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&info); err != nil {
		return "", fmt.Errorf("hfhub: %s: reading GET %s: %w", r, u, err)
	}
	if !commitHash.MatchString(info.SHA) {
		return "", fmt.Errorf("hfhub: %s: GET %s gave no commit (sha %q)", r, u, info.SHA)
	}
	return info.SHA, nil
}

// remoteFile is what the resolve route said of one file.
type remoteFile struct {
	etag     string
	location string // where its bytes are
	absent   bool   // the repository has no such file (EntryNotFound)
}

// etagName is an etag the cache can name a blob by: a git sha1 or an LFS sha256, or the
// hub's other hex forms.
var etagName = regexp.MustCompile(`^[0-9A-Za-z_-]{8,128}$`)

// metadata is get_hf_file_metadata: a HEAD of the file at commit, relative redirects followed.
func (h hub) metadata(ctx context.Context, r Ref, commit, file string) (remoteFile, error) {
	u := h.endpoint + "/" + r.Repo + "/resolve/" + commit + "/" + url.PathEscape(file)
	for range 5 {
		resp, err := h.do(ctx, http.MethodHead, u, false)
		if err != nil {
			return remoteFile{}, err
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode/100 == 3 && loc != "" {
			target, err := url.Parse(loc)
			if err != nil {
				return remoteFile{}, fmt.Errorf("hfhub: %s: HEAD %s: bad Location %q", r, u, loc)
			}
			if target.Host == "" { // a renamed repository: ask again at the new path
				u = resp.Request.URL.ResolveReference(target).String()
				continue
			}
		}
		return h.readMetadata(resp, r, file, u)
	}
	return remoteFile{}, fmt.Errorf("hfhub: %s: HEAD %s: too many redirects", r, u)
}

// readMetadata reads the answer of the HEAD that was not a relative redirect.
func (h hub) readMetadata(resp *http.Response, r Ref, file, u string) (remoteFile, error) {
	if resp.StatusCode == http.StatusNotFound && resp.Header.Get("X-Error-Code") == "EntryNotFound" {
		return remoteFile{absent: true}, nil
	}
	if resp.StatusCode/100 != 2 && resp.StatusCode/100 != 3 {
		return remoteFile{}, h.refused(resp, r, file)
	}
	f := remoteFile{etag: normalizeEtag(resp.Header.Get("X-Linked-Etag")), location: u}
	if f.etag == "" {
		f.etag = normalizeEtag(resp.Header.Get("ETag"))
	}
	if resp.StatusCode/100 == 3 {
		f.location = resp.Header.Get("Location")
	}
	if !etagName.MatchString(f.etag) {
		return remoteFile{}, fmt.Errorf("hfhub: %s: HEAD %s: no usable ETag (%q)", r, u, f.etag)
	}
	return f, nil
}

// normalizeEtag is _normalize_etag: a weak etag's W/ and the quotes dropped.
func normalizeEtag(e string) string {
	return strings.Trim(strings.TrimPrefix(e, "W/"), `"`)
}

// download gets a file's bytes from its location (redirects followed: the token goes to the
// hub's own host only) and checks them against the etag when it is their hash.
func (h hub) download(ctx context.Context, r Ref, file string, f remoteFile) ([]byte, error) {
	resp, err := h.do(ctx, http.MethodGet, f.location, true)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, h.refused(resp, r, file)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("hfhub: %s: downloading %s: %w", r, file, err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("hfhub: %s: %s is over %d bytes", r, file, maxFile)
	}
	if err := checkEtag(data, f.etag); err != nil {
		return nil, fmt.Errorf("hfhub: %s: %s: %w", r, file, err)
	}
	return data, nil
}

// checkEtag holds the bytes to their etag where the etag is their hash: an LFS file's is the
// sha256 of its bytes, a git file's the git blob sha1 ("blob LEN\0" then the bytes), as
// hf_hub_url's notes say. Other etags are not checked.
func checkEtag(data []byte, etag string) error {
	var got string
	switch len(etag) {
	case 64:
		s := sha256.Sum256(data)
		got = hex.EncodeToString(s[:])
	case 40:
		h := sha1.New()
		h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
		h.Write(data)
		got = hex.EncodeToString(h.Sum(nil))
	default:
		return nil
	}
	if !strings.EqualFold(got, etag) {
		return fmt.Errorf("the bytes downloaded do not match their ETag %s (got %s)", etag, got)
	}
	return nil
}

// do sends one request; the token goes only to the hub's own host. follow lets net/http follow
// redirects (it drops Authorization on a redirect to another host).
func (h hub) do(ctx context.Context, method, u string, follow bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, fmt.Errorf("hfhub: %w", err)
	}
	req.Header.Set("User-Agent", "replay")
	req.Header.Set("Accept-Encoding", "identity") // as get_hf_file_metadata: the real size
	if ep, err := url.Parse(h.endpoint); err == nil && ep.Host == req.URL.Host && h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	c := *h.http
	if !follow {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said below, without its query
		}
		return nil, fmt.Errorf("hfhub: %s %s: %w", method, redact(u), err)
	}
	return resp, nil
}

// redact is a URL without its query (a CDN's signed URL carries credentials there).
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(a bad URL)"
	}
	p.RawQuery, p.User = "", nil
	return p.String()
}
