package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// Identity names a trace by its content: shards replaying the same trace from different
// paths (a ConfigMap on one pod, a copy on another host) have the same Size and SHA256, and
// shards of different traces cannot, whatever their files are called.
type Identity struct {
	// Name is where the trace came from (its path, or a description of the generated
	// workload): for people reading errors, not compared.
	Name string `json:"name"`
	// Size is the trace's length in bytes.
	Size int64 `json:"size"`
	// SHA256 is the hex SHA-256 of the trace's bytes.
	SHA256 string `json:"sha256"`
}

// TraceIdentity hashes the trace file at path, streaming it (a day's trace need not fit in
// memory).
func TraceIdentity(path string) (Identity, error) {
	f, err := os.Open(path)
	if err != nil {
		return Identity{}, fmt.Errorf("shard: trace identity: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Identity{}, fmt.Errorf("shard: trace identity: reading %s: %w", path, err)
	}
	return Identity{Name: path, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// FilesIdentity is the identity of a trace read from several files (a folder of logs): their
// bytes in the order given (ingest's, by path), each file's length hashed before it so that
// moving bytes between files changes the identity. Name names them for people.
func FilesIdentity(name string, paths []string) (Identity, error) {
	h := sha256.New()
	var total int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return Identity{}, fmt.Errorf("shard: trace identity: %w", err)
		}
		fmt.Fprintf(h, "%d\n", st.Size())
		f, err := os.Open(p)
		if err != nil {
			return Identity{}, fmt.Errorf("shard: trace identity: %w", err)
		}
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return Identity{}, fmt.Errorf("shard: trace identity: reading %s: %w", p, err)
		}
		total += n
	}
	return Identity{Name: name, Size: total, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// IdentityOfBytes is the identity of a trace held in memory: the generated default workload,
// given as its canonical JSONL, so that two shards generating it with the same seed and
// shape agree and two with different ones do not.
func IdentityOfBytes(name string, b []byte) Identity {
	sum := sha256.Sum256(b)
	return Identity{Name: name, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
}

// Same reports whether two identities are of the same trace: same size and hash; the names
// may differ.
func (id Identity) Same(o Identity) bool { return id.Size == o.Size && id.SHA256 == o.SHA256 }

// String is the identity as errors show it.
func (id Identity) String() string {
	h := id.SHA256
	if len(h) > 12 {
		h = h[:12]
	}
	return fmt.Sprintf("%s (%d bytes, sha256 %s)", id.Name, id.Size, h)
}

// validate checks an identity read from a file.
func (id Identity) validate() error {
	if id.Size < 0 {
		return fmt.Errorf("trace.size %d: must not be negative", id.Size)
	}
	if b, err := hex.DecodeString(id.SHA256); err != nil || len(b) != sha256.Size {
		return fmt.Errorf("trace.sha256 %q: want 64 hex digits", id.SHA256)
	}
	return nil
}
