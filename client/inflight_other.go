//go:build !unix

package client

// OpenFileLimit and ephemeralPorts are unknown here: no client limit is applied.
func OpenFileLimit() int  { return 0 }
func ephemeralPorts() int { return 0 }
