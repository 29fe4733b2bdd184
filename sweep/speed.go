package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runner"
)

// SpeedPoint is one run of a sweep: the speed factor and what the run measured.
type SpeedPoint struct {
	Speed   float64           `json:"speed"`
	Dir     string            `json:"dir"`
	Summary *analysis.Summary `json:"summary"`
	// Holds is true when at least Target percent of the requests met every SLO limit.
	Holds bool `json:"holds"`
	// ClientBound marks a speed this machine could not send on time: its figures measure the
	// load generator, so the sweep stops there and says so.
	ClientBound bool `json:"client_bound,omitempty"`
}

// SpeedResult is the whole sweep; Knee is the largest speed that held the SLO (0 if none did).
type SpeedResult struct {
	SLO       string  `json:"slo"`
	TargetPct float64 `json:"target_pct"`
	Knee      float64 `json:"knee"`
	// KneeCost prices the knee's output throughput when a --cost-per-hour was given.
	KneeCost *KneeCost    `json:"knee_cost,omitempty"`
	Points   []SpeedPoint `json:"points"`
}

// Speed replays the same trace at each speed in turn (each run into its own folder under
// base.Out) and finds the largest speed at which at least targetPct of the requests met the
// SLO. It writes sweep.json and sweep.html (latency, throughput and goodput against speed, the
// knee marked) into base.Out, also for the speeds finished before an error or interruption.
// It stops early after the first speed that fails, since faster ones will not hold either on a
// sane endpoint; pass speeds in increasing order.
func Speed(ctx context.Context, base runner.Config, speeds []float64, targetPct float64) (*SpeedResult, error) {
	if base.SLO.IsZero() {
		return nil, errors.New("sweep needs --slo: the knee is where the SLO stops holding")
	}
	if len(speeds) == 0 {
		return nil, errors.New("sweep needs at least one speed")
	}
	for i, sp := range speeds {
		if sp <= 0 || (i > 0 && sp <= speeds[i-1]) {
			return nil, fmt.Errorf("--speeds must be positive and increasing, got %v", speeds)
		}
	}
	if err := os.MkdirAll(base.Out, 0o755); err != nil {
		return nil, fmt.Errorf("creating --out: %w", err)
	}
	res := &SpeedResult{SLO: base.SLO.String(), TargetPct: targetPct}
	for _, sp := range speeds {
		cfg := base
		cfg.Schedule.Speed = sp
		cfg.Out = filepath.Join(base.Out, "speed-"+strconv.FormatFloat(sp, 'g', -1, 64))
		cfg.MaxErrorRate = 1 // failures are what a sweep measures
		cfg.Stdout = io.Discard
		fmt.Fprintf(base.Stderr, "replay sweep: speed %gx -> %s\n", sp, cfg.Out)
		sum, err := runner.Run(ctx, cfg)
		if errors.Is(err, runner.ErrClientBound) && sum != nil {
			res.Points = append(res.Points, SpeedPoint{Speed: sp, Dir: cfg.Out, Summary: sum, ClientBound: true})
			err = fmt.Errorf("speed %gx: %w; the knee is at most what the speeds before it show", sp, err)
			if werr := writeSweep(base.Out, res); werr != nil {
				err = errors.Join(err, werr)
			}
			return res, err
		}
		if err != nil {
			err = fmt.Errorf("speed %gx: %w", sp, err)
			// Keep what the finished speeds showed; the interrupted one is not a point.
			if werr := writeSweep(base.Out, res); werr != nil {
				err = errors.Join(err, werr)
			}
			return res, err
		}
		p := SpeedPoint{Speed: sp, Dir: cfg.Out, Summary: sum}
		p.Holds = sum.Goodput != nil && sum.Goodput.AllPct >= targetPct
		res.Points = append(res.Points, p)
		if !p.Holds {
			break
		}
		res.Knee = sp
	}
	if res.Knee > 0 && base.CostPerHour > 0 {
		for _, p := range res.Points {
			if p.Speed == res.Knee {
				kc, err := CostAtKnee(base.CostPerHour, base.GPUs, p.Summary.Throughput.OutputTokS)
				if err != nil {
					return res, errors.Join(fmt.Errorf("cost at the knee: %w", err), writeSweep(base.Out, res))
				}
				res.KneeCost = kc
			}
		}
	}
	return res, writeSweep(base.Out, res)
}

// File is the sweep's JSON file name inside its --out folder, beside sweep.html.
const File = runfolder.Sweep

// writeSweep writes dir/sweep.json and dir/sweep.html for the points so far.
func writeSweep(dir string, res *SpeedResult) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, File), append(b, '\n'), 0o644); err != nil {
		return err
	}
	page := SpeedPage{SLO: res.SLO, TargetPct: res.TargetPct, Knee: res.Knee}
	for _, p := range res.Points {
		rel, err := filepath.Rel(dir, p.Dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = "" // not below the page: no link
		}
		page.Runs = append(page.Runs, SpeedRun{Speed: p.Speed, Dir: filepath.ToSlash(rel), Summary: p.Summary, Holds: p.Holds})
	}
	var buf bytes.Buffer
	if err := WriteSpeedHTML(&buf, page, report.Options{}); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, PageFile), err)
	}
	return os.WriteFile(filepath.Join(dir, PageFile), buf.Bytes(), 0o644)
}

// WriteSpeedTable prints one line per speed and the verdict.
func WriteSpeedTable(w io.Writer, r *SpeedResult) {
	fmt.Fprintf(w, "%8s %10s %12s %12s %10s  %s\n", "speed", "req/s", "ttft p95 ms", "e2e p95 ms", "slo met %", "holds")
	for _, p := range r.Points {
		s := p.Summary
		met := 0.0
		if s.Goodput != nil {
			met = s.Goodput.AllPct
		}
		fmt.Fprintf(w, "%7gx %10.2f %12.1f %12.1f %10.1f  %v\n", p.Speed, s.Throughput.ReqS, s.TTFTSched.P95, s.E2ESched.P95, met, p.Holds)
	}
	if r.Knee == 0 {
		fmt.Fprintf(w, "no speed held %s for %.0f%% of requests\n", r.SLO, r.TargetPct)
		return
	}
	fmt.Fprintf(w, "knee: %gx is the largest speed tried at which %.0f%% of requests met %s\n", r.Knee, r.TargetPct, r.SLO)
	if r.KneeCost != nil {
		fmt.Fprintf(w, "cost at the knee: %s\n", r.KneeCost)
	}
}
