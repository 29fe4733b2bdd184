package media

import (
	"bytes"
	"image"
	"testing"
)

// TestStandInSizesAndFormats builds stand-ins of the sizes the issue names and reads each back
// with the standard decoders: the logged size, the logged format (WebP as PNG), not one colour,
// the same bytes for the same key, different bytes for another.
func TestStandInSizesAndFormats(t *testing.T) {
	sizes := [][2]int{{20, 20}, {1300, 876}, {3000, 100}, {1, 1}, {7, 3}}
	if !testing.Short() {
		sizes = append(sizes, [2]int{4000, 3000})
	}
	for _, mime := range []string{PNG, JPEG, GIF, WebP} {
		for _, wh := range sizes {
			a, err := Build(42, wh[0], wh[1], mime)
			if err != nil {
				t.Fatal(err)
			}
			want := mime
			if mime == WebP {
				want = PNG
			}
			got, err := ReadHeader(a.Data, a.MIME)
			if err != nil || got.MIME != want || got.Width != wh[0] || got.Height != wh[1] {
				t.Fatalf("%s %v: read back %+v, %v", mime, wh, got, err)
			}
			again, _ := Build(42, wh[0], wh[1], mime)
			if !bytes.Equal(a.Data, again.Data) {
				t.Errorf("%s %v: the same key built different bytes", mime, wh)
			}
			other, _ := Build(43, wh[0], wh[1], mime)
			if bytes.Equal(a.Data, other.Data) {
				t.Errorf("%s %v: keys 42 and 43 built the same bytes", mime, wh)
			}
			if wh[0] >= 16 && wh[1] >= 16 && wh[0]*wh[1] <= 2_000_000 {
				checkNotBlank(t, a.Data, mime)
			}
		}
	}
}

func checkNotBlank(t *testing.T, data []byte, mime string) {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", mime, err)
	}
	b := img.Bounds()
	r0, g0, b0, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			if r, g, bb, _ := img.At(x, y).RGBA(); r != r0 || g != g0 || bb != b0 {
				return
			}
		}
	}
	t.Errorf("%s %v: the image is one colour", mime, b.Size())
}

func TestBuildRefuses(t *testing.T) {
	for _, c := range []struct {
		w, h int
		mime string
	}{{0, 10, PNG}, {10, -1, PNG}, {MaxSide + 1, 10, PNG}, {10, 10, "image/bmp"}} {
		if _, err := Build(1, c.w, c.h, c.mime); err == nil {
			t.Errorf("Build(%d, %d, %q) succeeded", c.w, c.h, c.mime)
		}
	}
}

// TestDataURLBytes: the size a data URL carries, read from its length, is the data's.
func TestDataURLBytes(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 1000, 1001, 1002} {
		u := DataURL(PNG, make([]byte, n))
		if got := DataURLBytes(u); got != n {
			t.Errorf("%d bytes: DataURLBytes %d", n, got)
		}
	}
	if DataURLBytes("http://x/y.png") != 0 || DataURLBytes("") != 0 {
		t.Error("a URL or nothing carries bytes")
	}
}
