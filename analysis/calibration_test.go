package analysis

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitCurvePicksTheModel: a straight TTFT line with ±2% wobble fits linear and recovers its
// intercept and slope; a curve with a real x² term (attention on long prompts) fits quadratic.
func TestFitCurvePicksTheModel(t *testing.T) {
	var xs, lin, quad []float64
	for i, x := range []float64{64, 256, 512, 768, 1024, 1536, 2048} {
		w := 1 + 0.02*float64(i%3-1)
		xs = append(xs, x)
		lin = append(lin, (15+0.02*x)*w)
		quad = append(quad, 15+0.01*x+2e-5*x*x)
	}
	f, err := FitCurve(xs, lin, "uncached prompt tokens")
	if err != nil {
		t.Fatal(err)
	}
	if f.Model != ModelLinear || math.Abs(f.Coef[1]-0.02)/0.02 > 0.05 || math.Abs(f.Coef[0]-15) > 2 {
		t.Errorf("linear data: %s", f)
	}
	q, err := FitCurve(xs, quad, "uncached prompt tokens")
	if err != nil {
		t.Fatal(err)
	}
	if q.Model != ModelQuadratic || math.Abs(q.Coef[2]-2e-5)/2e-5 > 1e-6 || q.RMSResidualMS > 1e-6 {
		t.Errorf("quadratic data: %s (coef %v)", q, q.Coef)
	}
	if _, err := FitCurve([]float64{100, 100}, []float64{1, 2}, "x"); err == nil || !strings.Contains(err.Error(), "two") {
		t.Errorf("one length: %v", err)
	}
}

func TestReadCalibrationRejects(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{`{`, "not a calibration.json"},
		{`{"version":2}`, `field "version"`},
		{`{"version":1,"ttft":{"model":"cubic","coef":[1,2]}}`, `field "ttft.model"`},
		{`{"version":1,"ttft":{"model":"linear","coef":[1,2,3]}}`, `field "ttft.coef"`},
	} {
		p := filepath.Join(dir, "c.json")
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCalibration(p); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want an error naming the file and %s", tc.body, err, tc.want)
		}
	}
	c := &Calibration{Version: CalibrationVersion, Points: []CalPoint{
		{Kind: PointUncached, PromptTokens: 100, UncachedTokens: 100, TTFTMS: 10},
		{Kind: PointUncached, PromptTokens: 300, UncachedTokens: 300, TTFTMS: 20},
	}}
	if err := FitCalibration(c); err != nil {
		t.Fatal(err)
	}
	if err := WriteCalibration(dir, c); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCalibration(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.PredictTTFTMS(200); math.Abs(got-15) > 1e-9 {
		t.Errorf("predicted %v ms at 200 tokens, want 15", got)
	}
}
