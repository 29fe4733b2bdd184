package trace

import "strings"

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
