//go:build !linux

package sim

import "net"

// stampedListen is net.Listen where no receive timestamps are read.
func stampedListen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// stampConns serves connections as they are where the kernel's receive timestamps are not
// read (rxstamp_linux.go): the arrival log's socket column is 0.
func stampConns(ln net.Listener) net.Listener { return ln }
