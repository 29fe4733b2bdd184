package analysis

import (
	"html/template"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chrome.go is the page chrome the study packages (sweep, calibrate, trend) draw their pages
// with: the same font, palette, plot frame, style and figure list as report.html, so every page
// of a run reads alike. Each name here is the exported face of this package's own helper; the
// chrome moves whole to a report package later, and these names with it.

// Figure is one plot of a page: its anchor, heading, caption and inline SVG.
type Figure = figure

// Line is one series of a plot: its legend name, colour and points.
type Line struct {
	Name  string
	Color color.Color
	XYs   plotter.XYs
}

// The plots' palette (matplotlib's first colours, and a light blue for a faint series).
var (
	Blue   color.Color = colBlue
	Orange color.Color = colOrange
	Green  color.Color = colGreen
	Red    color.Color = colRed
	Purple color.Color = colPurple
	Gray   color.Color = colGray
	Light  color.Color = colLight
)

// PageCSS is the style every page shares; each page adds its own rules after it.
const PageCSS = pageCSS

// FiguresHTML ends a page: its .Figures, each under a heading links can point at, then the
// closing tags.
const FiguresHTML = figuresHTML

// PageFuncs are the template functions every page uses (ms, pct, money, f1, f2, f3, onTimeMS,
// svg).
var PageFuncs = reportFuncs

// PageFont is the CSS that embeds the plots' font in a page, or none when noEmbed (tests
// compare pages without 400 KB of font).
func PageFont(noEmbed bool) (template.CSS, error) { return pageFont(noEmbed) }

// WritePage renders t with data whole before writing any of it, so a template error leaves w
// untouched; what names the page in that error.
func WritePage(w io.Writer, t *template.Template, data any, what string) error {
	return writePage(w, t, data, what)
}

// NewPlot is a plot with the pages' font everywhere and a light grid.
func NewPlot(title, xlabel, ylabel string) *plot.Plot { return newPlot(title, xlabel, ylabel) }

// SVG renders a plot as an SVG element for inlining (no XML prologue).
func SVG(p *plot.Plot) (string, error) { return svgOf(p) }

// SVGSized is SVG at w x h, for a page whose plots sit side by side.
func SVGSized(p *plot.Plot, w, h vg.Length) (string, error) { return svgSized(p, w, h) }

// NoData marks an empty plot so it still renders, with fixed axes and a note "no what".
func NoData(p *plot.Plot, what string) { noData(p, what) }

// IntegerTicks marks a count axis at whole numbers only.
var IntegerTicks plot.Ticker = integerTicks

// LineStyle is a solid or dashed line of colour c and width.
func LineStyle(c color.Color, width vg.Length, dashed bool) draw.LineStyle {
	return lineStyle(c, width, dashed)
}

// PlotFontCSS is the @font-face rule of the plots' font, for a page that inlines them (as
// report.html does), so their labels render offline with the metrics gonum laid them out with.
func PlotFontCSS() (template.CSS, error) { return embeddedFontCSS() }

// ChecksCSS styles a behaviour-checks table (checks.HTML) on a page of another package.
const ChecksCSS = template.CSS(checksCSS)
