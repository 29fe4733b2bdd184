package client

import "errors"

// clientLimit reports whether err, anywhere in its chain, is this machine running out of
// something (descriptors, local ports, socket buffers, memory): a failure of the client, not
// of the endpoint. limitErrnos is per OS (limits_*.go).
func clientLimit(err error) bool {
	if err == nil {
		return false
	}
	for _, e := range limitErrnos {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
