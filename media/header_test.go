package media

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestDataURLRoundTrip(t *testing.T) {
	img, err := Build(7, 64, 48, JPEG)
	if err != nil {
		t.Fatal(err)
	}
	u := DataURL(img.MIME, img.Data)
	for _, form := range []string{u, strings.TrimRight(u, "="), strings.Replace(u, "data:image/jpeg", "DATA:image/JPG", 1)} {
		mime, data, err := ParseDataURL(form)
		if err != nil {
			t.Fatalf("%.40s: %v", form, err)
		}
		got, err := ReadHeader(data, mime)
		if err != nil || got != (Image{MIME: JPEG, Width: 64, Height: 48}) {
			t.Errorf("%.40s: %+v, %v", form, got, err)
		}
	}
}

// TestBadImages are the bad inputs: each a clear error, never a panic.
func TestBadImages(t *testing.T) {
	png, _ := Build(1, 30, 20, PNG)
	b64 := base64.StdEncoding.EncodeToString(png.Data)
	for name, c := range map[string]struct{ url, want string }{
		"not base64":      {"data:image/png;base64,@@@@", "base64"},
		"no base64 flag":  {"data:image/png," + b64, "not base64"},
		"no comma":        {"data:image/png;base64", "comma"},
		"http":            {"https://example.com/a.png", "not a data URL"},
		"empty":           {"data:image/png;base64,", "no data"},
		"truncated":       {"data:image/png;base64," + base64.StdEncoding.EncodeToString(png.Data[:20]), "header"},
		"mime contradict": {"data:image/jpeg;base64," + b64, "declared image/jpeg, but the data is image/png"},
		"not an image":    {"data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("hello world")), "magic"},
	} {
		mime, data, err := ParseDataURL(c.url)
		if err == nil {
			_, err = ReadHeader(data, mime)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one saying %q", name, err, c.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	if w, h, err := ParseSize("1024x768"); err != nil || w != 1024 || h != 768 {
		t.Errorf("1024x768: %d %d %v", w, h, err)
	}
	for _, bad := range []string{"", "1024", "0x5", "ax5", "5x-1", "99999x1"} {
		if _, _, err := ParseSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestWebPHeader reads a lossless WebP's size (a VP8L header of 5×4, written by hand: RIFF,
// WEBP, the VP8L chunk's signature 0x2f and width-1, height-1 in 14 bits each) through
// golang.org/x/image/webp.
func TestWebPHeader(t *testing.T) {
	mime, data, err := ParseDataURL("data:image/webp;base64,UklGRhEAAABXRUJQVlA4TAUAAAAvBMAAAA==")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadHeader(data, mime)
	if err != nil || got != (Image{MIME: WebP, Width: 5, Height: 4}) {
		t.Errorf("%+v, %v", got, err)
	}
}
