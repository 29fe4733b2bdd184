package report

import (
	"image/color"

	"gonum.org/v1/plot/plotter"
)

// chrome.go is what every page of the module draws with, report.html and the studies' pages
// (sweep, calibrate, trend, compare, cache_study) alike: the same font, palette, plot frame,
// style and figure list, so every page of a run reads alike. The plot frame is in plots.go,
// the page's head and end in page.go.

// Figure is one plot of a page: its anchor, heading, caption and inline SVG. A figure with
// nothing to draw has no SVG and says so in Empty, one line in the page instead of an empty
// chart ("no errors").
type Figure struct {
	ID, Title, Caption string
	SVG                string
	Empty              string
}

// Line is one series of a plot: its legend name, colour and points.
type Line struct {
	Name  string
	Color color.Color
	XYs   plotter.XYs
}

// The plots' palette (matplotlib's first colours, and a light blue for a faint series).
var (
	Blue   color.Color = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	Orange color.Color = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	Green  color.Color = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	Red    color.Color = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	Purple color.Color = color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}
	Gray   color.Color = color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}
	Light  color.Color = color.RGBA{R: 0x9e, G: 0xc5, B: 0xe8, A: 0xff}
)
