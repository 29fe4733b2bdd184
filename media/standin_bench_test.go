package media

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

// BenchmarkStandIn1024 builds distinct 1024×1024 stand-ins (a new key each time, so nothing is
// reused), PNG and JPEG, beside the reference of the same invocation: the standard library
// encoding one uniform image of the size in the same format, the least an encoder of a
// generated image costs. images/s is what a run's plan can build ahead of its sends.
func BenchmarkStandIn1024(b *testing.B) {
	for _, mime := range []string{PNG, JPEG} {
		b.Run("ours-"+mime[len("image/"):], func(b *testing.B) {
			n := 0
			for i := 0; b.Loop(); i++ {
				img, err := Build(uint64(i)*0x9e3779b97f4a7c15, 1024, 1024, mime)
				if err != nil {
					b.Fatal(err)
				}
				n += len(img.Data)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "images/s")
			b.ReportMetric(float64(n)/float64(b.N), "bytes/image")
		})
		b.Run("reference-"+mime[len("image/"):], func(b *testing.B) {
			img := image.NewRGBA(image.Rect(0, 0, 1024, 1024))
			for i := range img.Pix {
				img.Pix[i] = 0x80
			}
			img.Set(0, 0, color.RGBA{1, 2, 3, 255})
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				var err error
				if mime == PNG {
					err = png.Encode(&buf, img)
				} else {
					err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 75})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}
