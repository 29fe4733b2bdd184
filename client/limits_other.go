//go:build !unix && !js && !wasip1 && !windows

package client

// limitErrnos is empty where the syscall package has no errno values (plan9): no failure is
// recognized as the client's limit there.
var limitErrnos []error
