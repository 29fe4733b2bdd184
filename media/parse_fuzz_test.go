package media

import (
	"testing"
)

// FuzzParseImage runs the parsers a logged image part goes through (the data URL, then the
// header) on any input: an error or a positive size, never a panic. The seeds in
// testdata/fuzz/FuzzParseImage are a small PNG, JPEG, GIF and WebP as data URLs, and broken ones.
func FuzzParseImage(f *testing.F) {
	f.Add("data:image/png;base64,iVBORw0KGgo=")
	f.Fuzz(func(t *testing.T, u string) {
		mime, data, err := ParseDataURL(u)
		if err != nil {
			return
		}
		img, err := ReadHeader(data, mime)
		if err == nil && (img.Width <= 0 || img.Height <= 0 || img.MIME == "") {
			t.Fatalf("%q: accepted as %+v", u, img)
		}
	})
}
