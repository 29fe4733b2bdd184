package media

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
)

// standin.go builds the image a replay sends for a logged one: of the logged size and format,
// made from nothing but the logged image's keyed hash, so the same logged image is the same
// bytes every time it is sent (an engine's multimodal cache sees the reuse production saw) and
// different logged images differ. Its content is a grid of tiles in colours drawn from the
// hash: never blank, cheap to encode (flat tiles compress well), and nothing of the logged
// pixels.

// StandIn is a built image: its bytes and the format they are in.
type StandIn struct {
	MIME string
	Data []byte
}

// Build makes the stand-in for the image keyed key, width×height, in format mime: PNG, JPEG
// and GIF as themselves; WebP, which the standard library cannot write, as PNG (the size and
// so the token count are the same; the caller says so).
func Build(key uint64, width, height int, mime string) (StandIn, error) {
	if width <= 0 || height <= 0 || width > MaxSide || height > MaxSide {
		return StandIn{}, fmt.Errorf("image size %dx%d: each side must be 1 to %d", width, height, MaxSide)
	}
	var buf bytes.Buffer
	switch NormalizeMIME(mime) {
	case JPEG:
		if err := jpeg.Encode(&buf, tilesYCbCr(key, width, height), &jpeg.Options{Quality: 75}); err != nil {
			return StandIn{}, err
		}
		return StandIn{MIME: JPEG, Data: buf.Bytes()}, nil
	case GIF:
		if err := gif.Encode(&buf, tilesPaletted(key, width, height), nil); err != nil {
			return StandIn{}, err
		}
		return StandIn{MIME: GIF, Data: buf.Bytes()}, nil
	case PNG, WebP:
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, tilesPaletted(key, width, height)); err != nil {
			return StandIn{}, err
		}
		return StandIn{MIME: PNG, Data: buf.Bytes()}, nil
	}
	return StandIn{}, fmt.Errorf("cannot build an image of type %q (PNG, JPEG, WebP or GIF)", mime)
}

// paletteSize is the colours of one stand-in: 16 drawn from the key.
const paletteSize = 16

// tile is the side of a grid cell for an image: about 8 cells on the shorter side, so even a
// small image shows several colours.
func tile(width, height int) int { return max(1, min(width, height)/8) }

// mix is splitmix64's finalizer: a well-spread 64-bit value from any input.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// cell is the palette index of the tile at (tx, ty); neighbours along a row differ, so no
// image of two or more tiles is one colour.
func cell(key uint64, tx, ty, prev int) int {
	c := int(mix(key^uint64(tx)<<20^uint64(ty)<<40) % paletteSize)
	if c == prev {
		c = (c + 1) % paletteSize
	}
	return c
}

func palette(key uint64) color.Palette {
	p := make(color.Palette, paletteSize)
	for i := range p {
		v := mix(key ^ uint64(i+1)*0x100000001b3)
		p[i] = color.RGBA{R: uint8(v), G: uint8(v >> 8), B: uint8(v >> 16), A: 255}
	}
	return p
}

// tileRow fills row (one palette index per pixel) for tile row ty.
func tileRow(key uint64, row []uint8, ty, t int) {
	prev := -1
	for x0 := 0; x0 < len(row); x0 += t {
		c := cell(key, x0/t, ty, prev)
		prev = c
		for x := x0; x < min(x0+t, len(row)); x++ {
			row[x] = uint8(c)
		}
	}
}

func tilesPaletted(key uint64, width, height int) *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, width, height), palette(key))
	t := tile(width, height)
	for y := 0; y < height; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+width]
		if y%t != 0 {
			copy(row, img.Pix[(y-1)*img.Stride:(y-1)*img.Stride+width])
			continue
		}
		tileRow(key, row, y/t, t)
	}
	return img
}

// tilesYCbCr is the same grid as a 4:2:0 image, the JPEG encoder's fast path.
func tilesYCbCr(key uint64, width, height int) *image.YCbCr {
	img := image.NewYCbCr(image.Rect(0, 0, width, height), image.YCbCrSubsampleRatio420)
	pal := palette(key)
	ys, cbs, crs := make([]uint8, paletteSize), make([]uint8, paletteSize), make([]uint8, paletteSize)
	for i, c := range pal {
		rgba := c.(color.RGBA)
		ys[i], cbs[i], crs[i] = color.RGBToYCbCr(rgba.R, rgba.G, rgba.B)
	}
	t := tile(width, height)
	idx := make([]uint8, width)
	for y := 0; y < height; y++ {
		if y%t == 0 {
			tileRow(key, idx, y/t, t)
		}
		for x, c := range idx {
			img.Y[img.YOffset(x, y)] = ys[c]
			if x%2 == 0 && y%2 == 0 {
				o := img.COffset(x, y)
				img.Cb[o], img.Cr[o] = cbs[c], crs[c]
			}
		}
	}
	return img
}
