//go:build !unix

package runner

// openFileLimit and ephemeralPorts are unknown here: no client limit is applied.
func openFileLimit() int  { return 0 }
func ephemeralPorts() int { return 0 }
