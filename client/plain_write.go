package client

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// plainable reports whether plainTransport carries req itself: plain http, a body of known
// length (or none), no protocol upgrade and no 100-continue handshake.
func plainable(req *http.Request) bool {
	if req.URL == nil || req.URL.Scheme != "http" {
		return false
	}
	if req.Body != nil && req.Body != http.NoBody && req.ContentLength <= 0 { // unknown length (net/http: 0 with a body)
		return false
	}
	_, upgrade := req.Header["Upgrade"]
	_, expect := req.Header["Expect"]
	return !upgrade && !expect
}

// skippedHeaders are the header fields writeRequest writes itself, or not at all.
var skippedHeaders = map[string]bool{"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Trailer": true, "Connection": true}

// writeRequest writes req in HTTP/1.1 form to bw, which the caller flushes: net/http's
// Request.Write would do, but it calls the trace's WroteRequest itself, and the caller calls
// it once. A header that would break the framing is an error, as net/http's.
func writeRequest(bw *bufio.Writer, req *http.Request) error {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	if !validHeaderValue(host) || !validToken(req.Method) {
		return fmt.Errorf("client: request line %s %s: invalid method or host", req.Method, host)
	}
	bw.WriteString(req.Method)
	bw.WriteByte(' ')
	bw.WriteString(req.URL.RequestURI())
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(host)
	bw.WriteString("\r\n")
	if _, ok := req.Header["User-Agent"]; !ok {
		bw.WriteString("User-Agent: Go-http-client/1.1\r\n")
	}
	for k, vs := range req.Header {
		if skippedHeaders[k] {
			continue
		}
		if !validToken(k) {
			return fmt.Errorf("client: invalid header name %q", k)
		}
		for _, v := range vs {
			if !validHeaderValue(v) {
				return fmt.Errorf("client: invalid value for header %q", k)
			}
			bw.WriteString(k)
			bw.WriteString(": ")
			bw.WriteString(v)
			bw.WriteString("\r\n")
		}
	}
	hasBody := req.Body != nil && req.Body != http.NoBody && req.ContentLength > 0
	if hasBody || (req.ContentLength == 0 && sendsLength(req.Method)) {
		bw.WriteString("Content-Length: ")
		bw.WriteString(strconv.FormatInt(req.ContentLength, 10))
		bw.WriteString("\r\n")
	}
	if req.Close {
		bw.WriteString("Connection: close\r\n")
	}
	_, err := bw.WriteString("\r\n")
	if hasBody {
		var n int64
		n, err = io.Copy(bw, io.LimitReader(req.Body, req.ContentLength))
		if err == nil && n != req.ContentLength {
			err = fmt.Errorf("client: request body: %d bytes of the %d announced", n, req.ContentLength)
		}
	}
	if req.Body != nil {
		req.Body.Close()
	}
	return err
}

// sendsLength reports whether an empty body is announced as "Content-Length: 0", as net/http
// does for the methods that carry one.
func sendsLength(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}

// validToken reports whether s is an HTTP token (a method or a header name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b <= ' ' || b >= 0x7f || b == ':' || b == '(' || b == ')' || b == ',' || b == '/' || b == ';' ||
			b == '<' || b == '=' || b == '>' || b == '?' || b == '@' || b == '[' || b == '\\' || b == ']' ||
			b == '{' || b == '}' || b == '"' {
			return false
		}
	}
	return true
}
