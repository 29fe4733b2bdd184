package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// plotFont is the one face every plot uses; report.html embeds it once so the page renders the
// same everywhere, offline.
var plotFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

const (
	plotW = 9 * vg.Inch
	plotH = 3.2 * vg.Inch
)

// NewPlot returns a plot with our font everywhere and a light grid.
func NewPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(plotFont, 13)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(plotFont, 11)
		a.Tick.Label.Font = font.From(plotFont, 9)
	}
	p.Legend.TextStyle.Font = font.From(plotFont, 10)
	p.Legend.Top = true
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// SVG renders a plot as an SVG element for inlining (no XML prologue).
func SVG(p *plot.Plot) (string, error) { return SVGSized(p, plotW, plotH) }

// SVGSized is SVG at w x h.
func SVGSized(p *plot.Plot, w, h vg.Length) (string, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("render plot %q: %w", p.Title.Text, err)
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}

// NoData marks an empty plot so it still renders, with fixed axes and a note.
func NoData(p *plot.Plot, what string) {
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: 0.5, Y: 0.5}}, Labels: []string{"no " + what}})
	if err == nil {
		l.TextStyle[0].Font = font.From(plotFont, 14)
		l.TextStyle[0].XAlign = draw.XCenter
		p.Add(l)
	}
}

func LineStyle(c color.Color, width vg.Length, dashed bool) draw.LineStyle {
	ls := draw.LineStyle{Color: c, Width: width}
	if dashed {
		ls.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return ls
}

// histogramPlot draws a latency distribution as 60 bins up to its p99.9 (the rarer tail is
// counted in the title, not drawn, so one outlier cannot flatten the picture), with vertical
// markers at p50, p95 and p99. Bins are linear, or logarithmic on a log axis when the tail is
// over 20x the median (ITL of batched decoding, TTFT under overload), where linear bins would
// squeeze the body of the distribution into one bar.
func histogramPlot(title string, l analysis.Histogram) (string, error) {
	p := NewPlot(title, "milliseconds", "requests")
	if l.Count() == 0 {
		NoData(p, "samples")
		return SVG(p)
	}
	const nbins = 60
	hiUS := float64(l.QuantileUS(99.9))
	loUS := float64(l.MinUS())
	p50US := float64(l.QuantileUS(50))
	logX := p50US > 0 && hiUS/p50US > 20
	if logX {
		loUS = math.Max(loUS, 1)
		loUS = math.Max(loUS, hiUS/1e6)
		logX = hiUS > loUS
	}
	if hiUS <= loUS {
		hiUS = loUS + 1
	}
	// edge(i) is the lower bound of bin i in µs; binOf maps a value to its bin.
	edge := func(i int) float64 { return loUS + float64(i)*(hiUS-loUS)/nbins }
	binOf := func(v float64) int { return int((v - loUS) / (hiUS - loUS) * nbins) }
	if logX {
		ratio := math.Log(hiUS / loUS)
		edge = func(i int) float64 { return loUS * math.Exp(float64(i)*ratio/nbins) }
		binOf = func(v float64) int {
			if v <= loUS {
				return 0
			}
			return int(math.Log(v/loUS) / ratio * nbins)
		}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Label.Text = "milliseconds (log scale)"
	}
	bins := make([]plotter.HistogramBin, nbins)
	for i := range bins {
		bins[i].Min = edge(i) / 1000
		bins[i].Max = edge(i+1) / 1000
	}
	var beyond int64
	for _, b := range l.Bars() {
		if b.Count == 0 {
			continue
		}
		mid := float64(b.FromUS+b.ToUS) / 2
		if mid > hiUS {
			beyond += b.Count
			continue
		}
		i := max(0, min(nbins-1, binOf(mid)))
		bins[i].Weight += float64(b.Count)
	}
	var top float64
	for _, b := range bins {
		top = math.Max(top, b.Weight)
	}
	h := &plotter.Histogram{Bins: bins, Width: (hiUS - loUS) / nbins / 1000, FillColor: Light, LineStyle: LineStyle(Blue, 0.5, false)}
	p.Add(h)
	top *= 1.15
	names, err := histogramMarkers(p, l, logX, loUS, top)
	if err != nil {
		return "", err
	}
	p.Title.Text = title + ": " + strings.Join(names, ", ")
	if beyond > 0 {
		p.Title.Text += fmt.Sprintf("\n%d above p99.9 = %s ms not drawn", beyond, analysis.FormatMS(hiUS/1000))
	}
	p.Y.Min, p.Y.Max = 0, top
	p.Y.Tick.Marker = IntegerTicks
	return SVG(p)
}

// histogramMarkers draws the vertical markers at p50, p95 and p99 up to top and returns their
// names for the title. They are named in the title, not a legend, which would sit on top of
// them (and not in the axis label: gonum centres that by the data's linear midpoint, off-centre
// on a log axis).
func histogramMarkers(p *plot.Plot, l analysis.Histogram, logX bool, loUS, top float64) ([]string, error) {
	var names []string
	for _, mk := range []struct {
		name, colour string
		q            float64
		c            color.Color
	}{{"p50", "green", 50, Green}, {"p95", "orange", 95, Orange}, {"p99", "red", 99, Red}} {
		v := float64(l.QuantileUS(mk.q)) / 1000
		x := v
		if logX {
			x = math.Max(x, loUS/1000) // a log axis cannot show 0
		}
		ln, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
		if err != nil {
			return nil, err
		}
		ln.LineStyle = LineStyle(mk.c, 1.5, true)
		p.Add(ln)
		names = append(names, fmt.Sprintf("%s %s ms (%s)", mk.name, analysis.FormatMS(v), mk.colour))
	}
	return names, nil
}

// namedLine is one line of a time plot.
type namedLine struct {
	name   string
	c      color.Color
	dashed bool
	xys    plotter.XYs
}

func timePlot(title, ylabel string, lines []namedLine) (string, error) {
	p := NewPlot(title, "seconds since run start", ylabel)
	drew := false
	top := 0.0
	for _, nl := range lines {
		if len(nl.xys) == 0 {
			continue
		}
		drew = true
		ln, err := plotter.NewLine(nl.xys)
		if err != nil {
			return "", fmt.Errorf("plot %q line %q: %w", title, nl.name, err)
		}
		ln.LineStyle = LineStyle(nl.c, 1.5, nl.dashed)
		p.Add(ln)
		if nl.name != "" {
			p.Legend.Add(nl.name, ln)
		}
		for _, xy := range nl.xys {
			top = math.Max(top, xy.Y)
		}
	}
	if !drew {
		NoData(p, "data")
		return SVG(p)
	}
	p.Y.Min = 0
	p.Y.Max = math.Max(top*1.2, 1e-3)
	return SVG(p)
}

// knownErrorClasses are always shown beside the classes seen, so a chart of a few failures
// says which classes had none. A run without failures draws no chart (report_figures.go).
var knownErrorClasses = []string{"connect", "http_429", "http_4xx", "http_5xx", "stream_broken", "timeout", "canceled"}

func errorPlot(errs map[string]int64) (string, error) {
	names := append([]string(nil), knownErrorClasses...)
	var extra []string
	for k := range errs {
		known := false
		for _, n := range knownErrorClasses {
			known = known || n == k
		}
		if !known {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	names = append(names, extra...)
	vals := make(plotter.Values, len(names))
	var top float64
	for i, n := range names {
		vals[i] = float64(errs[n])
		top = math.Max(top, vals[i])
	}
	p := NewPlot("failed requests by error class", "", "requests")
	bc, err := plotter.NewBarChart(vals, vg.Points(28))
	if err != nil {
		return "", err
	}
	bc.Color = Red
	bc.LineStyle = LineStyle(color.Black, 0.5, false)
	p.Add(bc)
	p.NominalX(names...)
	p.Y.Min, p.Y.Max = 0, math.Max(1, top*1.15)
	p.Y.Tick.Marker = IntegerTicks
	return SVG(p)
}

// serverQueueLines are the endpoint's running and waiting requests as scraped, drawn beside the
// client's in-flight count; nil when its /metrics were not scraped.
func serverQueueLines(m *analysis.Metrics) []namedLine {
	if len(m.ServerPoints()) == 0 {
		return nil
	}
	var running, waiting plotter.XYs
	for _, p := range m.ServerPoints() {
		if !math.IsNaN(p.Running) {
			running = append(running, plotter.XY{X: p.OffsetS, Y: p.Running})
		}
		if !math.IsNaN(p.Waiting) {
			waiting = append(waiting, plotter.XY{X: p.OffsetS, Y: p.Waiting})
		}
	}
	return []namedLine{{"running (server)", Green, false, running}, {"waiting (server)", Orange, false, waiting}}
}

// IntegerTicks labels a count axis with whole numbers only.
var IntegerTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	if hi-lo <= 10 {
		for v := math.Ceil(lo); v <= hi; v++ {
			out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
		}
		return out
	}
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			if t.Label == "" {
				out = append(out, t) // minor tick, unlabelled
			}
			continue
		}
		if t.Label != "" {
			t.Label = fmt.Sprintf("%.0f", t.Value)
		}
		out = append(out, t)
	}
	return out
})
