//go:build unix

package client

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// OpenFileLimit is the soft limit on open files (the Go runtime raised it to the hard limit
// at start), 0 when unknown.
func OpenFileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}

// ephemeralPorts is the size of the local port range outgoing connections take their port
// from (Linux), 0 when unknown.
func ephemeralPorts() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || hi < lo {
		return 0
	}
	return hi - lo + 1
}
