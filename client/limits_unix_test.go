//go:build unix

package client

import (
	"context"
	"strings"
	"syscall"
	"testing"
)

// The limits named in the errno table are the ones Linux and macOS report.
func TestClientLimitErrnos(t *testing.T) {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.EADDRNOTAVAIL, syscall.ENOBUFS, syscall.ENOMEM} {
		if !clientLimit(dialError(e)) {
			t.Errorf("%v not a client limit", e)
		}
	}
	ctx := context.Background()
	_, msg := (&call{ctx: ctx, rctx: ctx}).cut(ErrConnect, dialError(syscall.EMFILE), dialError(syscall.EMFILE).Error(), &Response{})
	if !strings.Contains(msg, "dial tcp: socket: too many open files (this machine's limit, not the endpoint's)") {
		t.Fatalf("message %q", msg)
	}
}
