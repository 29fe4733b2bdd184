package checks

import "strconv"

// maxQuote bounds the server's bytes one example quotes, so that a misbehaving server cannot
// flood a report.
const maxQuote = 160

// quote is b as a Go-quoted string of at most maxQuote bytes of it, saying how many more
// there were.
func quote(b []byte) string {
	if len(b) <= maxQuote {
		return strconv.Quote(string(b))
	}
	return strconv.Quote(string(b[:maxQuote])) + "… (" + strconv.Itoa(len(b)-maxQuote) + " more bytes)"
}
