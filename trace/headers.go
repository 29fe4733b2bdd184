package trace

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Header is one request header as the log held it: the name in lower case (HTTP names are
// case-insensitive), the value as logged. Credentials never become Headers (Secret).
type Header struct {
	Name, Value string
}

// secretNames are the headers that carry credentials in the APIs and gateways replay reads:
// HTTP's own (RFC 9110 Authorization, Proxy-Authorization; RFC 6265 Cookie, Set-Cookie),
// Anthropic's and Azure's x-api-key/api-key, Google's x-goog-api-key, and the gateways' own
// key headers (Portkey x-portkey-api-key, Helicone helicone-auth, Kong's apikey).
var secretNames = map[string]bool{
	"authorization": true, "proxy-authorization": true, "cookie": true, "set-cookie": true,
	"x-api-key": true, "api-key": true, "apikey": true, "x-goog-api-key": true,
	"helicone-auth": true, "x-portkey-api-key": true,
}

// SecretHeader reports whether a header of this name may carry a credential: the known names
// above, and any name holding "auth", "token", "secret", "cookie", "password" or "api-key"/
// "api_key"/"apikey". Such a header is dropped where it is read and never written or sent.
func SecretHeader(name string) bool {
	n := strings.ToLower(name)
	if secretNames[n] {
		return true
	}
	for _, w := range []string{"auth", "token", "secret", "cookie", "password", "api-key", "api_key", "apikey", "credential", "signature"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// HeaderValue is the value of the header named name (any case), and whether r has it.
func (r *Record) HeaderValue(name string) (string, bool) {
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value, true
		}
	}
	return "", false
}

// EncodeHeaders is the headers column's text: a JSON list of [name, value] pairs, nil for
// none. A credential is refused: the readers drop them, so one here is a caller's mistake.
func EncodeHeaders(hs []Header) ([]byte, error) {
	if len(hs) == 0 {
		return nil, nil
	}
	pairs := make([][2]string, len(hs))
	for i, h := range hs {
		if SecretHeader(h.Name) {
			return nil, fmt.Errorf("header %q may carry a credential: it is never written", h.Name)
		}
		pairs[i] = [2]string{h.Name, h.Value}
	}
	return json.Marshal(pairs)
}

// DecodeHeaders reads the headers column's text back; a credential-bearing name in a file
// (written by another tool) is dropped, as the readers drop it.
func DecodeHeaders(text []byte) ([]Header, error) {
	var pairs [][2]string
	if err := json.Unmarshal(text, &pairs); err != nil {
		return nil, fmt.Errorf("not a JSON list of [name, value] pairs: %w", err)
	}
	out := make([]Header, 0, len(pairs))
	for _, p := range pairs {
		if p[0] == "" {
			return nil, fmt.Errorf("a header without a name")
		}
		if !SecretHeader(p[0]) {
			out = append(out, Header{Name: strings.ToLower(p[0]), Value: p[1]})
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
