package media

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// MaxBytes bounds the decoded size of one logged image: a data URL larger than this is
// refused rather than decoded (request bodies of OpenAI-compatible servers are bounded too;
// 20 MB is OpenAI's own limit per image).
const MaxBytes = 20 << 20

// ParseDataURL reads a data URL (RFC 2397) of base64 data, as chat's image_url parts carry
// inline images: "data:image/png;base64,iVBOR...". It returns the declared media type (lower
// case, without parameters; "" when none was declared) and the decoded bytes. Padding may be
// left off, as some clients do.
func ParseDataURL(u string) (mime string, data []byte, err error) {
	rest, ok := cutPrefixFold(u, "data:")
	if !ok {
		return "", nil, errors.New("not a data URL")
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return "", nil, errors.New("data URL has no comma before its data")
	}
	params := strings.Split(meta, ";")
	mime = strings.ToLower(strings.TrimSpace(params[0]))
	b64 := false
	for _, p := range params[1:] {
		if strings.EqualFold(strings.TrimSpace(p), "base64") {
			b64 = true
		}
	}
	if !b64 {
		return "", nil, errors.New("data URL is not base64 (\";base64,\" missing)")
	}
	data, err = DecodeBase64(payload, MaxBytes)
	if err != nil {
		return "", nil, fmt.Errorf("data URL: %w", err)
	}
	return mime, data, nil
}

// DecodeBase64 decodes base64 text as clients write media inline: surrounding space trimmed,
// padding optional; more than max decoded bytes, bad base64 and no data at all are errors.
func DecodeBase64(s string, max int) ([]byte, error) {
	s = strings.TrimSpace(s)
	if base64.StdEncoding.DecodedLen(len(s)) > max {
		return nil, fmt.Errorf("more than %d MB of data", max>>20)
	}
	enc := base64.StdEncoding
	if !strings.HasSuffix(s, "=") && len(s)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	data, err := enc.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("bad base64: %w", err)
	}
	if len(data) == 0 {
		return nil, errors.New("no data")
	}
	return data, nil
}

// DataURL is data as a base64 data URL of the given media type.
func DataURL(mime string, data []byte) string {
	var b strings.Builder
	b.Grow(len("data:;base64,") + len(mime) + base64.StdEncoding.EncodedLen(len(data)))
	b.WriteString("data:")
	b.WriteString(mime)
	b.WriteString(";base64,")
	b.WriteString(base64.StdEncoding.EncodeToString(data))
	return b.String()
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// DataURLBytes is the decoded size of a base64 data URL's data without decoding it, 0 for
// anything else (an http URL, an empty string): what a request carries inline.
func DataURLBytes(u string) int {
	rest, ok := cutPrefixFold(u, "data:")
	if !ok {
		return 0
	}
	_, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return 0
	}
	return Base64Bytes(payload)
}

// Base64Bytes is the decoded size of base64 text without decoding it.
func Base64Bytes(s string) int {
	return base64.RawStdEncoding.DecodedLen(len(strings.TrimRight(strings.TrimSpace(s), "=")))
}
