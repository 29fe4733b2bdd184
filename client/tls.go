package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
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
