package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checkresult"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/require"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runload"
	"github.com/llm-replay/replay/runner"
)

// PairedConfidence is the level of each of a paired run's three tests (TTFT, e2e, TPOT) and
// of their intervals: 99%, so that together they claim a difference where there is none at
// most 3% of the time (Bonferroni), since any one of them turns the verdict.
const PairedConfidence = 0.99

// DirectionMixed is a paired verdict's first word when B is slower on one figure and faster
// on another.
const DirectionMixed = "mixed"

// PracticalMargin is the smallest relative difference a paired verdict claims: a figure's
// median difference (median(B) - median(A)) must lie, interval and all, beyond PracticalMargin
// of A's median, and beyond a millisecond for TTFT and e2e (timingFloorMS): a difference too
// small to matter to an objective is not claimed however sure the tests are of it. The
// verdict's effect is the difference of the runs' medians, not the median of per-request
// differences, because two servers' step loops stand at phases of their own and the
// per-request differences lean by the offset while the runs' distributions agree
// (analysis.quantileDiffIntervals). Measured with two `replay sim` processes of one
// configuration, 300 Poisson arrivals at 2x, 30 seeds: the median of per-request differences
// claimed a difference in 4 (up to ±3 ms, with the margin); the difference of medians in none.
// Twice the prefill time per token clears it by far (+33 ms).
const PracticalMargin = 0.01

// timingFloorMS is the margin's floor for a figure that is one pair of timestamps (TTFT, e2e):
// a millisecond, the scale of a sleep's overshoot and of a request's first-byte delay on either
// machine. TPOT averages over a stream's tokens and has none.
const timingFloorMS = 1.0

// pairedFigure is one figure of the paired comparison: the test, the margin the verdict holds
// it to, and the direction it claims in the verdict.
type pairedFigure struct {
	analysis.PairedTest
	// MarginMS is the margin: the median difference's interval must lie beyond +MarginMS (B
	// slower) or -MarginMS (B faster) for a claim.
	MarginMS float64 `json:"margin_ms"`
	// Claim is the figure's direction in the verdict: the test's when its interval also clears
	// the margin, else analysis.PairedSame.
	Claim string `json:"claim"`
}

// pairedComparison is A against one B of a paired run, as compare.json holds it.
type pairedComparison struct {
	A         string `json:"a"`
	B         string `json:"b"`
	AEndpoint string `json:"a_endpoint"`
	BEndpoint string `json:"b_endpoint"`
	AModel    string `json:"a_model"`
	BModel    string `json:"b_model"`
	// Paired are the per-request tests of TTFT, e2e and TPOT, B - A by request id over the
	// requests ok at both, in that order, each with its margin and claim.
	Paired []pairedFigure `json:"paired"`
	// Direction is analysis.PairedSlower, PairedFaster, PairedSame or DirectionMixed, from the
	// figures' claims; Verdict is the line, starting with it.
	Direction string `json:"direction"`
	Verdict   string `json:"verdict"`
	// Unpaired is replay compare's verdict over the two runs' distributions, for reference.
	Unpaired *unpairedComparison `json:"unpaired,omitempty"`
	// ReportA and ReportB are the endpoints' pages, relative to the run folder; UnpairedHTML
	// is the side-by-side page of the unpaired comparison.
	ReportA      string `json:"report_a"`
	ReportB      string `json:"report_b"`
	UnpairedHTML string `json:"unpaired_html,omitempty"`
	// Figures are compare.html's plots of the per-request differences.
	Figures []deltaFigure `json:"-"`
}

// unpairedComparison is Distributions' outcome in compare.json: intervals that are not
// finite (a run with no successful request) are null.
type unpairedComparison struct {
	Verdict string         `json:"verdict"`
	Slower  string         `json:"slower"`
	Tests   []unpairedTest `json:"tests"`
	// TTFTMannWhitneyP is the Mann-Whitney U test's p on the two runs' TTFTs.
	TTFTMannWhitneyP *float64 `json:"ttft_mann_whitney_p"`
}

type unpairedTest struct {
	Name       string   `json:"name"`
	A          float64  `json:"a_ms"`
	B          float64  `json:"b_ms"`
	Diff       float64  `json:"diff_ms"`
	Lo         *float64 `json:"lo_ms"`
	Hi         *float64 `json:"hi_ms"`
	N          [2]int   `json:"n"`
	Confidence float64  `json:"confidence"`
}

// compareFile is compare.json: A against the second endpoint at the top, and with three or
// more endpoints A against each other one under pairs.
type compareFile struct {
	pairedComparison
	Pairs []pairedComparison `json:"pairs,omitempty"`
	// Checks are every endpoint's behaviour checks side by side, in the endpoints' order;
	// Requirements the --require terms judged on each (requirements.go).
	Checks       []endpointChecks       `json:"checks,omitempty"`
	Requirements []endpointRequirements `json:"requirements,omitempty"`
}

// endpointChecks is one endpoint's behaviour checks in compare.json.
type endpointChecks struct {
	Label string `json:"label"`
	*analysis.Checks
}

// Paired runs cfg, a paired run (two or more cfg.Endpoints), with runner.RunEndpoints, which
// writes each endpoint's files and prints its table; then compares A (the first endpoint) with
// every other one: compare.json and compare.html in cfg.Out, the verdicts on stdout, and reqs
// judged on every endpoint and each B against A, on stderr. The error ranks as the endpoints'
// verdicts do (interrupted over client-bound over too many failures: runner.Result.Err), then
// ErrRequirements when every endpoint was ok but a limit failed; what stopped the run, or kept
// a file from being written, comes first.
func Paired(ctx context.Context, cfg runner.Config, reqs []require.Requirement) (*runner.Result, error) {
	res, err := runner.RunEndpoints(ctx, cfg)
	if res == nil {
		return nil, err
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	ers, failed := judgeRequirements(reqs, res.Endpoints)
	cerr := comparePaired(cfg, res.Endpoints, ers)
	switch {
	case err != nil: // what stopped the run, not that it stopped
		return res, err
	case cerr != nil:
		return res, cerr
	}
	// A run that failed keeps its own error (its exit code); the requirements are printed.
	if err := res.Err(); err != nil {
		return res, err
	}
	return res, requirementsError(ers, failed)
}

// comparePaired compares A (the first endpoint) with every other one from the rows on disk,
// writes compare.json and compare.html (with the requirements' outcomes ers and the
// endpoints' behaviour checks) and prints the verdicts, the checks side by side and ers.
func comparePaired(cfg runner.Config, eps []runner.EndpointResult, ers []endpointRequirements) error {
	var pcs []pairedComparison
	for _, b := range eps[1:] {
		pc, err := comparePair(cfg.Out, eps[0], b)
		if err != nil {
			return err
		}
		pcs = append(pcs, pc)
	}
	cols := checksColumns(eps)
	labels := labelList(eps)
	page := pairedPage{Pairs: pcs, Labels: labels, Limits: limitGrid(labels, ers), Checks: checksHTMLOf(cols), Media: mediaGrid(eps), Groups: groupGrid(eps)}
	if len(ers) == 0 {
		page.SLO = sloGrid(eps)
	}
	var err error
	if page.FontCSS, err = report.PlotFontCSS(); err != nil {
		return err
	}
	f := compareFile{pairedComparison: pcs[0], Requirements: ers}
	if len(pcs) > 1 {
		f.Pairs = pcs
	}
	if cols != nil {
		for _, e := range eps {
			f.Checks = append(f.Checks, endpointChecks{Label: e.Label, Checks: e.Checks})
		}
	}
	if err := writeCompareFiles(cfg.Out, f, page); err != nil {
		return err
	}
	printPaired(cfg.Stdout, pcs)
	if cols != nil {
		fmt.Fprintln(cfg.Stdout, "behaviour checks, side by side:")
		if err := writeChecks(cfg.Stdout, cols); err != nil {
			return err
		}
	}
	if err := writeRequirements(cfg.Stderr, ers); err != nil {
		return err
	}
	fmt.Fprintf(cfg.Stderr, "replay: %s: wrote %s, %s\n", cfg.Out, runfolder.Compare, runfolder.CompareReport)
	return nil
}

// comparePair is A against B: the paired tests over their rows on disk, each held to its
// margin, the difference plots, and the unpaired comparison, whose page it writes into dir.
func comparePair(dir string, a, b runner.EndpointResult) (pairedComparison, error) {
	pc := pairedComparison{A: a.Label, B: b.Label, AEndpoint: a.URL, BEndpoint: b.URL,
		AModel: a.Model, BModel: b.Model,
		ReportA: a.Label + "/" + runfolder.Report, ReportB: b.Label + "/" + runfolder.Report}
	va, vb, err := runload.ReadRequestValues(a.Out, b.Out)
	if err != nil {
		return pc, err
	}
	pc.Paired = figures(analysis.PairedTests(va, vb, analysis.PairedOptions{Confidence: PairedConfidence}))
	pc.Direction, pc.Verdict = pairedVerdict(pc.Paired)
	margins := map[string]float64{}
	for _, f := range pc.Paired {
		margins[f.Name] = f.MarginMS
	}
	if pc.Figures, err = deltaFigures(va, vb, margins); err != nil {
		return pc, err
	}
	c := Distributions(a.Metrics, b.Metrics, a.Summary, b.Summary, Options{LabelA: a.Label, LabelB: b.Label})
	pc.Unpaired = unpairedOf(c)
	pc.UnpairedHTML = "unpaired-" + b.Label + ".html"
	var buf bytes.Buffer
	if err := WriteHTML(&buf, c, report.Options{}); err != nil {
		return pc, err
	}
	return pc, runfolder.WriteFile(filepath.Join(dir, pc.UnpairedHTML), buf.Bytes())
}

// writeChecks prints the endpoints' checks side by side, those that did not pass with what
// was seen, then a blank line.
func writeChecks(w io.Writer, eps []checkresult.Endpoint) error {
	if err := checkresult.WriteText(w, eps); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// figures holds each test to its margin.
func figures(tests []analysis.PairedTest) []pairedFigure {
	out := make([]pairedFigure, len(tests))
	for i, t := range tests {
		f := pairedFigure{PairedTest: t, MarginMS: PracticalMargin * t.MedianA, Claim: analysis.PairedSame}
		if t.Name != "tpot" {
			f.MarginMS = max(f.MarginMS, timingFloorMS)
		}
		iv := t.MedianDiff
		switch {
		case t.Direction == analysis.PairedSlower && iv.Lo > f.MarginMS:
			f.Claim = analysis.PairedSlower
		case t.Direction == analysis.PairedFaster && iv.Hi < -f.MarginMS:
			f.Claim = analysis.PairedFaster
		}
		out[i] = f
	}
	return out
}

// pairedVerdict is the run's line from the figures' claims: B slower when one of them claims
// it and none claims B faster, and so on. Each claimed figure is named with its median
// difference and interval; with no claim every figure is, with its margin.
func pairedVerdict(figs []pairedFigure) (direction, line string) {
	if len(figs) == 0 || figs[0].N == 0 && figs[1%len(figs)].N == 0 {
		return analysis.PairedSame, analysis.PairedSame + ": no request succeeded at both endpoints"
	}
	var slower, faster, all []string
	for _, f := range figs {
		d := describePaired(f.PairedTest)
		if f.N > 0 {
			all = append(all, d+fmt.Sprintf(", margin ±%s ms", figure(f.MarginMS)))
		}
		switch f.Claim {
		case analysis.PairedSlower:
			slower = append(slower, d)
		case analysis.PairedFaster:
			faster = append(faster, d)
		}
	}
	switch {
	case len(slower) > 0 && len(faster) > 0:
		return DirectionMixed, fmt.Sprintf("%s: B slower on %s; faster on %s", DirectionMixed, strings.Join(slower, "; "), strings.Join(faster, "; "))
	case len(slower) > 0:
		return analysis.PairedSlower, analysis.PairedSlower + ": " + strings.Join(slower, "; ")
	case len(faster) > 0:
		return analysis.PairedFaster, analysis.PairedFaster + ": " + strings.Join(faster, "; ")
	}
	return analysis.PairedSame, analysis.PairedSame + ": " + strings.Join(all, "; ")
}

// describePaired is one test in a verdict: "ttft median +40.1 ms [99% CI +38.2, +42.0], p = 1e-40, n = 300".
func describePaired(t analysis.PairedTest) string {
	if t.N == 0 {
		return t.Name + " no request ok at both"
	}
	iv := t.MedianDiff
	return fmt.Sprintf("%s median %s ms [%s%% CI %s, %s], p = %.2g, n = %d", t.Name, signedFigure(iv.Delta),
		percent(t.Confidence), signedFigure(iv.Lo), signedFigure(iv.Hi), t.WilcoxonP, t.N)
}

// figure is v with three significant digits at most.
func figure(v float64) string { return strings.TrimPrefix(signedFigure(v), "+") }

// signedFigure is v with its sign and three significant digits at most, as a latency reads.
func signedFigure(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%+.0f", v)
	case a >= 10:
		return fmt.Sprintf("%+.1f", v)
	case a >= 0.005 || a == 0:
		return fmt.Sprintf("%+.2f", v)
	}
	return fmt.Sprintf("%+.2g", v)
}

// percent is a confidence level as a percentage: "99", "97.5".
func percent(conf float64) string { return strconv.FormatFloat(math.Round(1e5*conf)/1e3, 'f', -1, 64) }

// unpairedOf is c for compare.json.
func unpairedOf(c *Comparison) *unpairedComparison {
	u := &unpairedComparison{Verdict: c.Verdict, Slower: c.Slower, TTFTMannWhitneyP: finite(c.TTFTMannWhitney.P)}
	for _, t := range c.Tests {
		u.Tests = append(u.Tests, unpairedTest{Name: t.Name, A: t.A, B: t.B, Diff: t.Interval.Delta,
			Lo: finite(t.Interval.Lo), Hi: finite(t.Interval.Hi), N: t.N, Confidence: t.Confidence})
	}
	return u
}

// finite is v, or nil when JSON cannot hold it.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// writeCompareFiles writes compare.json and compare.html, atomically.
func writeCompareFiles(dir string, f compareFile, page pairedPage) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", runfolder.Compare, err)
	}
	if err := runfolder.WriteFile(filepath.Join(dir, runfolder.Compare), append(b, '\n')); err != nil {
		return err
	}
	var html bytes.Buffer
	if err := writePairedHTML(&html, page); err != nil {
		return err
	}
	return runfolder.WriteFile(filepath.Join(dir, runfolder.CompareReport), html.Bytes())
}

// printPaired writes the verdicts after the endpoints' tables: per B the verdict line, each
// test's own line, and the unpaired comparison's verdict.
func printPaired(w io.Writer, pcs []pairedComparison) {
	for _, pc := range pcs {
		n := 0
		for _, t := range pc.Paired {
			n = max(n, t.N)
		}
		fmt.Fprintf(w, "paired: A = %s, B = %s: %d requests ok at both, each sent to both at its scheduled time\n", pc.A, pc.B, n)
		fmt.Fprintf(w, "verdict: %s\n", pc.Verdict)
		for _, f := range pc.Paired {
			fmt.Fprintf(w, "  %-5s %s\n", f.Name, figureLine(f))
		}
		if pc.Unpaired != nil {
			fmt.Fprintf(w, "unpaired (replay compare): %s\n", pc.Unpaired.Verdict)
		}
		fmt.Fprintln(w)
	}
}

// figureLine is a figure's line under the verdict: its claim, then the test's own line and
// the margin, saying so when the test alone would claim a direction the margin does not.
func figureLine(f pairedFigure) string {
	line := f.Claim + ": " + strings.TrimPrefix(f.Verdict, f.Direction+": ") + fmt.Sprintf("; margin ±%s ms", figure(f.MarginMS))
	if f.Claim != f.Direction {
		line += fmt.Sprintf(" (the difference is inside it; the test alone says %s)", f.Direction)
	}
	return line
}
