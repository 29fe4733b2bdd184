package calibrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/trace"
)

// calibrate.go measures single requests one at a time over a grid of prompt and output
// lengths (replay calibrate) and fits the curves of analysis/calibration.go to them. The grid
// is a designed trace replayed by the ordinary run machinery, so prompts are exact under the
// model's tokenizer and forced to their output length like any run's: one session whose turns
// are gated on each other's answers, so exactly one request is in flight and the engine is
// idle when each arrives.

// calibrationBlock is the block size of the designed trace: vLLM's and the simulator's KV
// block, so a cached twin's whole prompt is in blocks an engine can reuse.
const calibrationBlock = 16

// calibrationGap is the pause after each answer before the next request: long enough for the
// engine to go idle, short enough not to matter to the run's length.
const calibrationGap = 20 * time.Millisecond

// defaultMaxPrompt is the largest prompt calibrated without a trace or --max-prompt-tokens.
const defaultMaxPrompt = 2048

// Options is the grid.
type Options struct {
	// PromptTokens are the prompt lengths; empty means Points lengths evenly spread up to
	// MaxPromptTokens (or the trace's p99 prompt when a trace is given, else 2048).
	PromptTokens    []int
	MaxPromptTokens int
	Points          int
	// OutputTokens are the output lengths each prompt length is sent with.
	OutputTokens []int
	// Repeats is how many times the whole grid is measured (fresh prefixes each time).
	Repeats int
	// NoCached skips the cached twin sent right after each prompt length's first request.
	NoCached bool
}

func (o Options) withDefaults() Options {
	if o.Points == 0 {
		o.Points = 6
	}
	if len(o.OutputTokens) == 0 {
		o.OutputTokens = []int{8, 32}
	}
	if o.Repeats == 0 {
		o.Repeats = 3
	}
	return o
}

// Run measures the grid against base's endpoint (or simulator) into base.Out/run and
// writes base.Out/calibration.json and calibration.html. base.Warmup throwaway requests go
// first (2 when 0). The trace, when base.Trace is set, only sets the largest prompt.
func Run(ctx context.Context, base runner.Config, o Options) (*analysis.Calibration, error) {
	o = o.withDefaults()
	if base.Out == "" {
		return nil, errors.New("--out is required")
	}
	if base.Stderr == nil {
		base.Stderr = os.Stderr
	}
	grid, err := calibrationGrid(base, o)
	if err != nil {
		return nil, err
	}
	for _, n := range o.OutputTokens {
		if n <= 0 {
			return nil, fmt.Errorf("--output-tokens %v: every length must be positive", o.OutputTokens)
		}
	}
	if o.Repeats < 0 {
		return nil, fmt.Errorf("--repeats %d: want 1 or more", o.Repeats)
	}
	if err := os.MkdirAll(base.Out, 0o755); err != nil {
		return nil, fmt.Errorf("creating --out: %w", err)
	}
	recs, kinds := calibrationRecords(grid, o)
	tracePath := filepath.Join(base.Out, "calibration-trace.parquet")
	if err := trace.WriteFile(tracePath, recs); err != nil {
		return nil, fmt.Errorf("%s: %w", tracePath, err)
	}
	cfg := gridConfig(base, tracePath)
	fmt.Fprintf(base.Stderr, "replay calibrate: %d single requests (prompts %v x outputs %v x %d repeats%s) -> %s\n",
		len(recs), grid, o.OutputTokens, o.Repeats, map[bool]string{false: ", each prompt again cached", true: ""}[o.NoCached], cfg.Out)
	sum, err := runner.Run(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("calibration run: %w", err)
	}
	rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, runfolder.Requests))
	if err != nil {
		return nil, err
	}
	c := &analysis.Calibration{Version: analysis.CalibrationVersion, Endpoint: sum.Run.Endpoint, Model: sum.Run.Model,
		CreatedAt: time.Now().UTC().Truncate(time.Second), PromptTokens: grid, OutputTokens: o.OutputTokens,
		Repeats: o.Repeats, Warmup: cfg.Warmup}
	failed := 0
	for i := range rows {
		r := &rows[i]
		if r.Warmup || !r.Final() {
			continue
		}
		idx := int(r.Line) - 1
		if idx < 0 || idx >= len(kinds) || int(r.TargetPromptTokens) != recs[idx].PromptTokens {
			return nil, fmt.Errorf("%s: row %s (line %d) matches no request of the grid", cfg.Out, r.RequestID, r.Line)
		}
		p, ok := analysis.CalPointOf(r, kinds[idx])
		if !ok {
			failed++
			continue
		}
		c.Points = append(c.Points, p)
	}
	if failed > 0 {
		fmt.Fprintf(base.Stderr, "replay calibrate: %d of %d requests failed or had no first token; left out of the fit (see %s)\n", failed, len(recs), cfg.Out)
	}
	if err := analysis.FitCalibration(c); err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Out, err)
	}
	if err := analysis.WriteCalibration(base.Out, c); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, c, report.Options{}); err != nil {
		return nil, err
	}
	return c, os.WriteFile(filepath.Join(base.Out, PageFile), buf.Bytes(), 0o644)
}

// gridConfig is base set to replay the grid's trace at tracePath one request at a time, into
// base.Out/run.
func gridConfig(base runner.Config, tracePath string) runner.Config {
	cfg := base
	cfg.Trace = tracePath
	cfg.Ingest.Format = "parquet"
	cfg.Out = filepath.Join(base.Out, "run")
	cfg.Schedule.Speed, cfg.Schedule.MaxConcurrency = 1, 1
	cfg.Schedule.From, cfg.Schedule.To, cfg.Schedule.Limit, cfg.Limit = 0, 0, 0, 0
	cfg.Options, cfg.UniquePrefixes = runner.OptionsNone, false
	cfg.Synth.MaxPromptTokens = 0 // the grid is the prompts; MaxPromptTokens only shaped it
	if cfg.Warmup == 0 {
		cfg.Warmup = 2
	}
	cfg.MaxLateness = 0 // one request at a time: no schedule to keep
	cfg.MaxErrorRate = 1
	cfg.Stdout = io.Discard
	return cfg
}

// calibrationGrid is the prompt lengths to measure, in increasing order.
func calibrationGrid(base runner.Config, o Options) ([]int, error) {
	if len(o.PromptTokens) > 0 {
		g := append([]int(nil), o.PromptTokens...)
		sort.Ints(g)
		for i, n := range g {
			if n <= 0 || (i > 0 && n == g[i-1]) {
				return nil, fmt.Errorf("--prompt-tokens %v: want distinct positive lengths", o.PromptTokens)
			}
		}
		return g, nil
	}
	if o.Points < 2 {
		return nil, fmt.Errorf("--points %d: a curve needs 2 or more prompt lengths", o.Points)
	}
	top := o.MaxPromptTokens
	if top < 0 {
		return nil, fmt.Errorf("--max-prompt-tokens %d: want a positive length", top)
	}
	if top == 0 && base.Trace != "" {
		p99, err := traceP99Prompt(base)
		if err != nil {
			return nil, err
		}
		top = p99
	}
	if top == 0 {
		top = defaultMaxPrompt
	}
	var g []int
	for i := 1; i <= o.Points; i++ {
		n := (top*i/o.Points + calibrationBlock - 1) / calibrationBlock * calibrationBlock
		n = max(n, calibrationBlock)
		if len(g) == 0 || n > g[len(g)-1] {
			g = append(g, n)
		}
	}
	if len(g) < 2 {
		return nil, fmt.Errorf("largest prompt %d tokens: too short for %d lengths of whole %d-token blocks", top, o.Points, calibrationBlock)
	}
	return g, nil
}

// traceP99Prompt is the 99th percentile prompt length of base's trace window.
func traceP99Prompt(base runner.Config) (int, error) {
	_, recs, err := runner.Window(base)
	if err != nil {
		return 0, err
	}
	if len(recs) == 0 {
		return 0, fmt.Errorf("%s: no records in the selected window", base.Trace)
	}
	ps := make([]int, len(recs))
	for i := range recs {
		ps[i] = recs[i].PromptTokens
	}
	sort.Ints(ps)
	return ps[(len(ps)*99+99)/100-1], nil
}

// calibrationRecords lays the grid out as one session: for each repeat and prompt length, a
// request of fresh blocks per output length, then (unless NoCached) the first of them again
// with the shortest output, its whole prompt in blocks the endpoint has just computed.
func calibrationRecords(grid []int, o Options) ([]trace.Record, []string) {
	var recs []trace.Record
	var kinds []string
	next := uint64(1) << 40
	add := func(p, out int, hashes []uint64, kind string) {
		n := len(recs)
		recs = append(recs, trace.Record{Timestamp: time.Duration(n) * calibrationGap, PromptTokens: p, OutputTokens: out,
			BlockHashes: hashes, BlockSize: calibrationBlock, SessionID: "calibrate", Turn: n, Line: int64(n + 1)})
		kinds = append(kinds, kind)
	}
	shortest := o.OutputTokens[0]
	for _, n := range o.OutputTokens {
		shortest = min(shortest, n)
	}
	for range o.Repeats {
		for _, p := range grid {
			var first []uint64
			for _, out := range o.OutputTokens {
				hs := make([]uint64, (p+calibrationBlock-1)/calibrationBlock)
				for j := range hs {
					hs[j] = next
					next++
				}
				if first == nil {
					first = hs
				}
				add(p, out, hs, analysis.PointUncached)
			}
			if !o.NoCached {
				add(p, shortest, first, analysis.PointCached)
			}
		}
	}
	return recs, kinds
}

// WriteSummary prints the fitted curves and the residuals per prompt length.
func WriteSummary(w io.Writer, c *analysis.Calibration) {
	fmt.Fprintf(w, "TTFT  = %s\n", c.TTFT)
	if c.TTFTCached != nil {
		fmt.Fprintf(w, "TTFT cached prefix = %s\n", c.TTFTCached)
	}
	if c.TPOT != nil {
		fmt.Fprintf(w, "TPOT  = %s\n", c.TPOT)
	}
	fmt.Fprintf(w, "%8s %8s %8s %12s %12s %12s\n", "kind", "prompt", "cached", "ttft ms", "fit ms", "residual ms")
	for _, p := range c.Points {
		fit := p.TTFTMS - p.ResidualMS
		fmt.Fprintf(w, "%8s %8d %8d %12.2f %12.2f %12s\n", p.Kind, p.PromptTokens, p.CachedTokens, p.TTFTMS, fit, strconv.FormatFloat(p.ResidualMS, 'f', 2, 64))
	}
}
