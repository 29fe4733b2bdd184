package client

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/url"
	"strings"
	"time"
)

// NotTLS reports whether err is an https request answered by a server that does not speak
// TLS: its first bytes were no TLS record (crypto/tls's RecordHeaderError, "first record does
// not look like a TLS handshake"), or plain HTTP, which net/http's transport reports in its own
// words ("server gave HTTP response to HTTPS client") without the RecordHeaderError behind it.
// The fix is the URL's scheme, not a CA file: no certificate was ever offered.
func NotTLS(err error) bool {
	if err == nil {
		return false
	}
	var record tls.RecordHeaderError
	return errors.As(err, &record) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// SpeaksTLS reports whether the server at hostport completes a TLS handshake, whatever its
// certificate: what tells an http:// URL pointed at a TLS port (which answers plain HTTP with
// a 400, as Go's and nginx's servers do, or closes the connection) from a plain-HTTP server
// that failed for another reason. It dials the port u connects to (its own, else 80) and sends
// nothing past the handshake.
func SpeaksTLS(ctx context.Context, u *url.URL) bool {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	hostport := net.JoinHostPort(u.Hostname(), port)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} // only the protocol is asked
	conn, err := d.DialContext(ctx, "tcp", hostport)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
