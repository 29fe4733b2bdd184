package sweep

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// sweep_report_twoaxis.go draws the capacity-planning picture of a concurrency sweep: latency on
// the left axis and throughput on the right against the same concurrency axis, the SLO's limit
// as a dashed line and the knee as a vertical one, so one figure shows where throughput stops
// paying for latency. gonum/plot has no second y axis, so this one plot is written as SVG by
// hand (inline, no script, no network).

// twoAxisPoint is one level: its concurrency, its latency (ms) and throughput (tok/s).
type twoAxisPoint struct {
	X          int
	LatencyMS  float64
	Throughput float64
}

// Geometry of the figure, in SVG user units (px at 100%).
const (
	taW, taH                      = 900.0, 420.0
	taLeft, taRight, taTop, taBot = 80.0, 90.0, 40.0, 60.0
)

// niceTicks returns ticks from 0 to at least hi on a 1-2-5 step, about n of them.
func niceTicks(hi float64, n int) []float64 {
	if !(hi > 0) {
		hi = 1
	}
	raw := hi / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var t []float64
	for v := 0.0; v < hi+step/2; v += step {
		t = append(t, v)
		if v >= hi {
			break
		}
	}
	if t[len(t)-1] < hi {
		t = append(t, t[len(t)-1]+step)
	}
	return t
}

// fmtTick writes an axis value without trailing zeros.
func fmtTick(v float64) string {
	if v >= 1000 || v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// twoAxisSVG draws latency (left axis, orange) and throughput (right axis, purple) against
// concurrency on a log2 axis, with the SLO's latency limit (dashed red, when > 0) and the knee
// (dashed gray, when > 0).
func twoAxisSVG(title, latLabel, tputLabel string, pts []twoAxisPoint, sloMS float64, knee int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="Liberation Sans, Arial, sans-serif" font-size="12" role="img" aria-label="%s">`, taW, taH, taW, taH, html.EscapeString(title))
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="#fff"/>`, taW, taH)
	fmt.Fprintf(&b, `<text x="%g" y="22" text-anchor="middle" font-size="14">%s</text>`, taW/2, html.EscapeString(title))
	pw, ph := taW-taLeft-taRight, taH-taTop-taBot
	if len(pts) == 0 {
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">no levels</text></svg>`, taW/2, taH/2)
		return b.String()
	}
	lo, hi := math.Log2(float64(pts[0].X)), math.Log2(float64(pts[len(pts)-1].X))
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.05
	lo, hi = lo-pad, hi+pad
	xOf := func(c int) float64 { return taLeft + (math.Log2(float64(c))-lo)/(hi-lo)*pw }
	latMax, tpMax := sloMS, 0.0
	for _, p := range pts {
		latMax = math.Max(latMax, p.LatencyMS)
		tpMax = math.Max(tpMax, p.Throughput)
	}
	lt, tt := niceTicks(latMax*1.05, 6), niceTicks(tpMax*1.05, 6)
	latTop, tpTop := lt[len(lt)-1], tt[len(tt)-1]
	yLat := func(v float64) float64 { return taTop + ph - v/latTop*ph }
	yTp := func(v float64) float64 { return taTop + ph - v/tpTop*ph }
	// Grid and left axis ticks.
	for _, v := range lt {
		y := yLat(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e1e1e1"/>`, taLeft, y, taLeft+pw, y)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="#ff7f0e">%s</text>`, taLeft-6, y+4, fmtTick(v))
	}
	for _, v := range tt {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#9467bd">%s</text>`, taLeft+pw+6, yTp(v)+4, fmtTick(v))
	}
	for _, p := range pts {
		x := xOf(p.X)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222"/>`, x, taTop+ph, x, taTop+ph+5)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, x, taTop+ph+18, p.X)
	}
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#222"/>`, taLeft, taTop, pw, ph)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">requests in flight (closed loop, log scale)</text>`, taLeft+pw/2, taH-18)
	fmt.Fprintf(&b, `<text transform="translate(20,%g) rotate(-90)" text-anchor="middle" fill="#ff7f0e">%s</text>`, taTop+ph/2, html.EscapeString(latLabel))
	fmt.Fprintf(&b, `<text transform="translate(%g,%g) rotate(90)" text-anchor="middle" fill="#9467bd">%s</text>`, taW-18, taTop+ph/2, html.EscapeString(tputLabel))
	if sloMS > 0 {
		y := yLat(sloMS)
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#d62728" stroke-width="1.5" stroke-dasharray="6,4"/>`, taLeft, y, taLeft+pw, y)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" fill="#d62728">SLO ttft %s ms</text>`, taLeft+6, y-5, fmtTick(sloMS))
	}
	if knee > 0 {
		x := xOf(knee)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#7f7f7f" stroke-width="1.5" stroke-dasharray="4,4"/>`, x, taTop, x, taTop+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" fill="#555">knee %d</text>`, x+5, taTop+14, knee)
	}
	series := func(y func(twoAxisPoint) float64, col string) {
		var d []string
		for _, p := range pts {
			d = append(d, fmt.Sprintf("%.1f,%.1f", xOf(p.X), y(p)))
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(d, " "), col)
		for _, p := range pts {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`, xOf(p.X), y(p), col)
		}
	}
	series(func(p twoAxisPoint) float64 { return yLat(p.LatencyMS) }, "#ff7f0e")
	series(func(p twoAxisPoint) float64 { return yTp(p.Throughput) }, "#9467bd")
	// Legend, top left inside the frame.
	lx, ly := taLeft+12, taTop+30.0
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#ff7f0e" stroke-width="2"/><text x="%g" y="%g">%s (left)</text>`, lx, ly, lx+24, ly, lx+30, ly+4, html.EscapeString(latLabel))
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#9467bd" stroke-width="2"/><text x="%g" y="%g">%s (right)</text>`, lx, ly+18, lx+24, ly+18, lx+30, ly+22, html.EscapeString(tputLabel))
	b.WriteString(`</svg>`)
	return b.String()
}
