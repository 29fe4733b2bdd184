package routing

import (
	"crypto/sha256"
	"encoding/hex"
)

// AffinityValue is the --affinity-header value of a request of session: a digest of the
// session id (the record's, already pseudonymized by the readers that keep one), so a router
// hashing on the header keeps every turn of a session on one backend and no logged id is
// sent; "" for a request in no session, which then goes without the header.
func AffinityValue(session string) string {
	if session == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("replay-affinity\x00" + session))
	return hex.EncodeToString(sum[:8])
}
