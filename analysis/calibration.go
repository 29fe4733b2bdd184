package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
)

// calibration.go is the calibration layer of capacity planning: single requests, one at a time,
// measured over a grid of prompt and output lengths, and the curves fitted to them, so a loaded
// run's TTFT can be split into what one request alone would take and what it waited. The
// measuring and its page are package calibrate's; the numbers, the fits and the file are here.

// CalibrationVersion is calibration.json's format version.
const CalibrationVersion = 1

// The kinds of calibration point: a prompt of fresh blocks, and the same prompt sent again
// right after, whose prefix the endpoint may serve from its cache.
const (
	PointUncached = "uncached"
	PointCached   = "cached"
)

// The curve models a Fit can hold.
const (
	// ModelLinear is y = c0 + c1 x: a fixed cost plus a cost per token.
	ModelLinear = "linear"
	// ModelQuadratic is y = c0 + c1 x + c2 x²: attention's cost grows with the square of the
	// prompt, which shows on long prompts.
	ModelQuadratic = "quadratic"
)

// Fit is one least-squares curve: its model, what x is, the coefficients (c0 first, ms), how
// well it fits (RMS and largest residual in ms, R²) over N points.
type Fit struct {
	Model          string    `json:"model"`
	X              string    `json:"x"`
	Coef           []float64 `json:"coef"`
	N              int       `json:"n"`
	RMSResidualMS  float64   `json:"rms_residual_ms"`
	MaxResidualMS  float64   `json:"max_abs_residual_ms"`
	R2             float64   `json:"r2"`
	LinearRMSMS    float64   `json:"linear_rms_residual_ms,omitempty"`
	QuadraticRMSMS float64   `json:"quadratic_rms_residual_ms,omitempty"`
}

// At is the curve's value at x.
func (f Fit) At(x float64) float64 {
	y, p := 0.0, 1.0
	for _, c := range f.Coef {
		y += c * p
		p *= x
	}
	return y
}

// String writes the curve as a formula, e.g. "TTFT = 15.2 ms + 0.0201 ms x uncached prompt tokens".
func (f Fit) String() string {
	if len(f.Coef) == 0 {
		return "no fit"
	}
	term := func(c float64, what string) string {
		if c < 0 {
			return fmt.Sprintf(" - %.4g ms x %s", -c, what)
		}
		return fmt.Sprintf(" + %.4g ms x %s", c, what)
	}
	s := fmt.Sprintf("%.4g ms", f.Coef[0]) + term(f.Coef[1], f.X)
	if len(f.Coef) == 3 {
		s += term(f.Coef[2], f.X+"²")
	}
	return fmt.Sprintf("%s (%s least squares, %d points, RMS residual %.2f ms, R² %.4f)", s, f.Model, f.N, f.RMSResidualMS, f.R2)
}

// CalPoint is one measured single request.
type CalPoint struct {
	Kind string `json:"kind"`
	// PromptTokens is the prompt the server reported (the target when it reported none);
	// CachedTokens the part it said it served from cache (0 when it says nothing).
	PromptTokens   int     `json:"prompt_tokens"`
	CachedTokens   int     `json:"cached_tokens"`
	UncachedTokens int     `json:"uncached_tokens"`
	OutputTokens   int     `json:"output_tokens"`
	TTFTMS         float64 `json:"ttft_ms"`
	// TPOTMS is (last - first token) / (output tokens - 1); 0 under two tokens.
	TPOTMS float64 `json:"tpot_ms"`
	// ContextTokens is the mean context of the decode: prompt plus half the output.
	ContextTokens float64 `json:"context_tokens"`
	// ResidualMS is the measured TTFT less the curve's for its kind.
	ResidualMS float64 `json:"residual_ms"`
}

// CalPointOf turns a successful streamed row into a point of the given kind; false for a row
// that failed, was not streamed or has no first token.
func CalPointOf(r *results.Row, kind string) (CalPoint, bool) {
	if !r.OK() || !r.Streamed() || r.FirstTokenNS <= 0 || r.Warmup {
		return CalPoint{}, false
	}
	p := CalPoint{Kind: kind, PromptTokens: int(r.TargetPromptTokens), OutputTokens: int(r.TargetOutputTokens)}
	if r.PromptTokens >= 0 {
		p.PromptTokens = int(r.PromptTokens)
	}
	if r.CompletionTokens >= 0 {
		p.OutputTokens = int(r.CompletionTokens)
	}
	if r.CachedTokens > 0 {
		p.CachedTokens = int(r.CachedTokens)
	}
	p.UncachedTokens = max(0, p.PromptTokens-p.CachedTokens)
	p.TTFTMS = float64(r.FirstTokenNS-r.SentNS) / 1e6
	if p.OutputTokens >= 2 && r.LastTokenNS > r.FirstTokenNS {
		p.TPOTMS = float64(r.LastTokenNS-r.FirstTokenNS) / 1e6 / float64(p.OutputTokens-1)
	}
	p.ContextTokens = float64(p.PromptTokens) + float64(p.OutputTokens)/2
	return p, true
}

// Calibration is calibration.json: the grid measured, the fitted curves and every point.
// TTFT is over uncached prompts (x: uncached prompt tokens); TTFTCached over the repeats whose
// prefix was cached (x: prompt tokens); TPOT over decode context (x: context tokens).
type Calibration struct {
	Version      int        `json:"version"`
	Endpoint     string     `json:"endpoint"`
	Model        string     `json:"model"`
	CreatedAt    time.Time  `json:"created_at"`
	PromptTokens []int      `json:"grid_prompt_tokens"`
	OutputTokens []int      `json:"grid_output_tokens"`
	Repeats      int        `json:"repeats"`
	Warmup       int        `json:"warmup"`
	TTFT         Fit        `json:"ttft"`
	TTFTCached   *Fit       `json:"ttft_cached,omitempty"`
	TPOT         *Fit       `json:"tpot,omitempty"`
	Points       []CalPoint `json:"points"`
}

// PredictTTFTMS is the TTFT one request alone takes for its uncached prompt tokens, by the
// calibration's curve; never negative.
func (c *Calibration) PredictTTFTMS(uncached int) float64 {
	return math.Max(0, c.TTFT.At(float64(uncached)))
}

// FitCalibration fits the curves to the points and fills each point's residual. The TTFT curve
// needs uncached points at two or more prompt lengths.
func FitCalibration(c *Calibration) error {
	var ux, uy, cx, cy, tx, ty []float64
	for _, p := range c.Points {
		switch p.Kind {
		case PointUncached:
			ux, uy = append(ux, float64(p.UncachedTokens)), append(uy, p.TTFTMS)
		case PointCached:
			cx, cy = append(cx, float64(p.PromptTokens)), append(cy, p.TTFTMS)
		default:
			return fmt.Errorf("calibration point kind %q: want %s or %s", p.Kind, PointUncached, PointCached)
		}
		if p.TPOTMS > 0 && p.Kind == PointUncached {
			tx, ty = append(tx, p.ContextTokens), append(ty, p.TPOTMS)
		}
	}
	f, err := FitCurve(ux, uy, "uncached prompt tokens")
	if err != nil {
		return fmt.Errorf("TTFT curve: %w", err)
	}
	c.TTFT = f
	if cf, err := fitLinear(cx, cy, "prompt tokens (prefix cached)"); err == nil {
		c.TTFTCached = &cf
	}
	if tf, err := fitLinear(tx, ty, "context tokens"); err == nil {
		c.TPOT = &tf
	}
	for i := range c.Points {
		p := &c.Points[i]
		switch {
		case p.Kind == PointUncached:
			p.ResidualMS = round3(p.TTFTMS - c.TTFT.At(float64(p.UncachedTokens)))
		case c.TTFTCached != nil:
			p.ResidualMS = round3(p.TTFTMS - c.TTFTCached.At(float64(p.PromptTokens)))
		}
	}
	return nil
}

// FitCurve fits TTFT against x by least squares, linear and quadratic, and keeps the quadratic
// only when its curvature is real: measured at five or more lengths, a positive x² term that
// adds 5% or more at the longest prompt and cuts the RMS residual by at least a fifth.
// Otherwise the linear fit is kept, since a quadratic always fits a little better and
// extrapolates worse.
func FitCurve(xs, ys []float64, xname string) (Fit, error) {
	lin, err := fitLinear(xs, ys, xname)
	if err != nil {
		return Fit{}, err
	}
	quad, qerr := fitQuadratic(xs, ys, xname)
	lin.LinearRMSMS = lin.RMSResidualMS
	if qerr != nil {
		return lin, nil
	}
	lin.QuadraticRMSMS, quad.LinearRMSMS, quad.QuadraticRMSMS = quad.RMSResidualMS, lin.RMSResidualMS, quad.RMSResidualMS
	xmax := 0.0
	for _, x := range xs {
		xmax = math.Max(xmax, x)
	}
	bend := quad.Coef[2] * xmax * xmax // what the x² term adds at the longest prompt
	if quad.Coef[2] > 0 && quad.RMSResidualMS <= 0.8*lin.RMSResidualMS && bend >= 0.05*quad.At(xmax) {
		return quad, nil
	}
	return lin, nil
}

// distinct counts the distinct values of xs.
func distinct(xs []float64) int {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := 0
	for i := range s {
		if i == 0 || s[i] != s[i-1] {
			n++
		}
	}
	return n
}

func fitLinear(xs, ys []float64, xname string) (Fit, error) {
	if distinct(xs) < 2 {
		return Fit{}, fmt.Errorf("%d points at %d distinct %s: a line needs two", len(xs), distinct(xs), xname)
	}
	a, b := stat.LinearRegression(xs, ys, nil, false)
	return finishFit(Fit{Model: ModelLinear, X: xname, Coef: []float64{a, b}}, xs, ys), nil
}

func fitQuadratic(xs, ys []float64, xname string) (Fit, error) {
	if distinct(xs) < 5 {
		return Fit{}, errors.New("a quadratic is judged on five or more distinct lengths")
	}
	// Scale x so the x² column is not 1e6 times the constant one.
	scale := 0.0
	for _, x := range xs {
		scale = math.Max(scale, math.Abs(x))
	}
	a := mat.NewDense(len(xs), 3, nil)
	for i, x := range xs {
		u := x / scale
		a.Set(i, 0, 1)
		a.Set(i, 1, u)
		a.Set(i, 2, u*u)
	}
	var qr mat.QR
	qr.Factorize(a)
	var c mat.Dense
	if err := qr.SolveTo(&c, false, mat.NewDense(len(ys), 1, append([]float64(nil), ys...))); err != nil {
		return Fit{}, fmt.Errorf("quadratic least squares: %w", err)
	}
	coef := []float64{c.At(0, 0), c.At(1, 0) / scale, c.At(2, 0) / (scale * scale)}
	return finishFit(Fit{Model: ModelQuadratic, X: xname, Coef: coef}, xs, ys), nil
}

// finishFit fills the residual figures.
func finishFit(f Fit, xs, ys []float64) Fit {
	var ss, tot, worst float64
	mean := stat.Mean(ys, nil)
	for i, x := range xs {
		r := ys[i] - f.At(x)
		ss += r * r
		tot += (ys[i] - mean) * (ys[i] - mean)
		worst = math.Max(worst, math.Abs(r))
	}
	f.N = len(xs)
	f.RMSResidualMS = round3(math.Sqrt(ss / float64(len(xs))))
	f.MaxResidualMS = round3(worst)
	if tot > 0 {
		f.R2 = math.Round((1-ss/tot)*1e6) / 1e6
	}
	return f
}

// WriteCalibration writes dir/calibration.json.
func WriteCalibration(dir string, c *Calibration) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return runfolder.WriteFile(filepath.Join(dir, runfolder.Calibration), append(b, '\n'))
}

// ReadCalibration reads and checks a calibration.json (a file or the folder holding one).
func ReadCalibration(path string) (*Calibration, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, runfolder.Calibration)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	var c Calibration
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("calibration %s: not a calibration.json: %w", path, err)
	}
	if c.Version != CalibrationVersion {
		return nil, fmt.Errorf("calibration %s: field \"version\": %d, want %d (written by replay calibrate)", path, c.Version, CalibrationVersion)
	}
	want := map[string]int{ModelLinear: 2, ModelQuadratic: 3}[c.TTFT.Model]
	if want == 0 {
		return nil, fmt.Errorf("calibration %s: field \"ttft.model\": %q, want %s or %s", path, c.TTFT.Model, ModelLinear, ModelQuadratic)
	}
	if len(c.TTFT.Coef) != want {
		return nil, fmt.Errorf("calibration %s: field \"ttft.coef\": %d coefficients, a %s curve has %d", path, len(c.TTFT.Coef), c.TTFT.Model, want)
	}
	for i, v := range c.TTFT.Coef {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("calibration %s: field \"ttft.coef[%d]\": %v is not a number", path, i, v)
		}
	}
	return &c, nil
}
