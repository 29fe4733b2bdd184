package runner

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llm-replay/replay/client"
)

// TestSchemeMismatch: an https:// URL at a plain-HTTP server and an http:// URL at a TLS
// server are each refused before anything is sent, with the URL to use instead and no word
// of --ca-file (no certificate is at fault); the right scheme passes the same check.
func TestSchemeMismatch(t *testing.T) {
	models := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	})
	plain := httptest.NewServer(models)
	defer plain.Close()
	tlsSrv := httptest.NewUnstartedServer(models)
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the plain-HTTP request is expected
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	httpsAtPlain := strings.Replace(plain.URL, "http://", "https://", 1) + "/v1"
	httpAtTLS := strings.Replace(tlsSrv.URL, "https://", "http://", 1) + "/v1"
	cfg := Config{Client: client.Config{API: client.APIChat, Insecure: true}}
	for _, c := range []struct {
		url, want string
	}{
		{httpsAtPlain, "use " + plain.URL + "/v1 instead (http://, not https://)"},
		{httpAtTLS, "use " + tlsSrv.URL + "/v1 instead (https://, not http://)"},
	} {
		_, err := preflight(context.Background(), cfg, []Endpoint{{URL: c.url, Model: "m"}})
		t.Log(err)
		if err == nil || !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant a setup error saying %q", c.url, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "--ca-file") || strings.Contains(err.Error(), "--insecure") {
			t.Errorf("%s: %v\nsuggests a certificate flag for a scheme mismatch", c.url, err)
		}
	}
	for _, right := range []string{plain.URL + "/v1", tlsSrv.URL + "/v1"} {
		if _, err := preflight(context.Background(), cfg, []Endpoint{{URL: right, Model: "m"}}); err != nil {
			t.Errorf("%s: %v, want it accepted", right, err)
		}
	}
}

// TestSchemeOtherBadRequest: a plain-HTTP server's own 400 is no scheme mismatch (its port
// completes no TLS handshake), so preflight does not turn it into one.
func TestSchemeOtherBadRequest(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad", http.StatusBadRequest)
	}))
	defer plain.Close()
	cfg := Config{Client: client.Config{API: client.APIChat}}
	if _, err := preflight(context.Background(), cfg, []Endpoint{{URL: plain.URL + "/v1", Model: "m"}}); err != nil {
		t.Errorf("a plain server's 400: %v, want it left to the run", err)
	}
}

// TestSchemeClosingTLS: http:// at a TLS port whose server closes the connection on plain
// HTTP (no 400 first) is still told apart by its handshake.
func TestSchemeClosingTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler()) // only for its certificate
	srv.StartTLS()
	defer srv.Close()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srv.TLS)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				conn.(*tls.Conn).Handshake() // a plain request fails it; a TLS client completes it
				conn.Close()
			}()
		}
	}()
	cfg := Config{Client: client.Config{API: client.APIChat}}
	_, err = preflight(context.Background(), cfg, []Endpoint{{URL: "http://" + ln.Addr().String() + "/v1", Model: "m"}})
	if want := "use https://" + ln.Addr().String() + "/v1 instead"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("http:// at a TLS port that closes: %v\nwant %q", err, want)
	}
	t.Log(err)
}
