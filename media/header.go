package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // registers GIF's header reader with image.DecodeConfig
	_ "image/jpeg" // and JPEG's
	_ "image/png"  // and PNG's
	"strings"

	_ "golang.org/x/image/webp" // and WebP's (VP8, VP8L and VP8X headers), which the standard library lacks
)

// The image formats a logged image may have: those chat APIs accept (OpenAI: PNG, JPEG, WebP,
// non-animated GIF).
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	WebP = "image/webp"
	GIF  = "image/gif"
)

// Image is what a replay keeps of a logged image: its format and size, never its pixels.
type Image struct {
	MIME          string
	Width, Height int
}

// Sniff names data's image format by its magic bytes, "" when it is none of PNG, JPEG, WebP
// and GIF.
func Sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return JPEG
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return GIF
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return WebP
	}
	return ""
}

// NormalizeMIME lower-cases a declared media type and reads image/jpg, which clients write,
// as image/jpeg.
func NormalizeMIME(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	if m == "image/jpg" || m == "image/pjpeg" {
		return JPEG
	}
	return m
}

// ReadHeader reads an image's format and size from its header (the pixels are not decoded).
// declared is the media type the request gave ("" for none): one that contradicts the bytes'
// magic is an error, as is data that is no image of the four formats or whose header is cut.
func ReadHeader(data []byte, declared string) (Image, error) {
	got := Sniff(data)
	if got == "" {
		return Image{}, errors.New("the data is not a PNG, JPEG, WebP or GIF image (unknown magic bytes)")
	}
	if d := NormalizeMIME(declared); d != "" && d != got {
		return Image{}, fmt.Errorf("declared %s, but the data is %s by its magic bytes", d, got)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Image{}, fmt.Errorf("the %s header cannot be read: %w", got, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Image{}, fmt.Errorf("the %s header says %dx%d", got, cfg.Width, cfg.Height)
	}
	return Image{MIME: got, Width: cfg.Width, Height: cfg.Height}, nil
}
