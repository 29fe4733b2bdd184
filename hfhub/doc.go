// Package hfhub finds a Hugging Face model repository's tokenizer files on this machine, and
// fetches them from the hub when they are not here: the standard cache folder the Python
// client (huggingface_hub) keeps, read as it lays it out and written the same way, so a
// repository one tool fetched is the other's too.
//
// It owns the cache layout (models--ORG--NAME/refs/REVISION holding a commit hash,
// snapshots/COMMIT/FILE as relative symlinks into blobs/ETAG, .no_exist/COMMIT/FILE for a
// file the repository does not have), the environment that places it and the hub
// (HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HF_ENDPOINT, HF_TOKEN and the token file,
// HF_HUB_OFFLINE), and the hub's download protocol (the revision API, the resolve route with
// its X-Repo-Commit, ETag and X-Linked-Etag headers, redirects, EntryNotFound, gated repos).
// Every rule is read from huggingface_hub's own source, cited beside the code.
//
// It must not tokenize or read the files it fetches (synth/tokenizer and chat do), import
// any other package of the module, or let the token out: it is sent as a Bearer header to the
// hub's own host and never appears in an error or a message.
package hfhub
