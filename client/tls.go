package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
)

// tlsConfig builds the TLS settings of https endpoints: the system roots, plus cfg.CAFile's
// certificates when given; no verification only when cfg.Insecure asks for it.
func tlsConfig(cfg Config) (*tls.Config, error) {
	t := &tls.Config{InsecureSkipVerify: cfg.Insecure}
	if cfg.CAFile == "" {
		return t, nil // nil RootCAs: the system roots
	}
	pem, err := os.ReadFile(cfg.CAFile)
	if err != nil {
		return nil, fmt.Errorf("client: CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool() // no system roots here: the CA file alone
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("client: CA file %s holds no PEM certificate", cfg.CAFile)
	}
	t.RootCAs = pool
	return t, nil
}

// TLSFailure reports whether err is the TLS handshake's failure: a certificate this side does
// not accept (crypto/tls's CertificateVerificationError, or x509's own errors where a custom
// verifier returns them), an alert the server sent, or an answer that is no TLS record (an
// https URL to a plain-http port, which net/http's transport reports as a plain error of its
// own words, without the tls.RecordHeaderError behind it).
func TLSFailure(err error) bool {
	if err != nil && strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return true
	}
	var (
		cve     *tls.CertificateVerificationError
		alert   tls.AlertError
		record  tls.RecordHeaderError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
	)
	return errors.As(err, &cve) || errors.As(err, &alert) || errors.As(err, &record) ||
		errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid)
}

// connectMessage explains a failure before any answer. A certificate the client does not
// accept gets what to do about it, since the fix is on this side (a flag), not the server's.
func connectMessage(err error) string {
	var cve *tls.CertificateVerificationError
	if !errors.As(err, &cve) {
		return err.Error()
	}
	var (
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		hint    = "(give --ca-file with the server's CA, or --insecure)"
	)
	switch {
	case errors.As(cve.Err, &host):
		hint = "(the certificate is for other names: connect by one it lists, or give --insecure)"
	case errors.As(cve.Err, &invalid):
		hint = "(the server's certificate is not valid: renew it, or give --insecure)"
	}
	return withNote("TLS: ", cve.Err.Error(), hint)
}
