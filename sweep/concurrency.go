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
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/trace"
)

// concurrency.go is the closed-loop sweep: the same trace at a fixed number of requests
// in flight per level, 1, 2, 4 ..., as the capacity-planning loop measures an endpoint (the
// speed sweep in speed.go is its open-loop sibling).

// ConcurrencyPoint is one level of a concurrency sweep and what its run measured.
type ConcurrencyPoint struct {
	Concurrency int               `json:"concurrency"`
	Dir         string            `json:"dir"`
	Summary     *analysis.Summary `json:"summary"`
	// Holds is true when every SLO limit held at the target percentile (see levelBreaks).
	Holds bool `json:"holds"`
	// Why says which limit broke, empty when the level held.
	Why         string `json:"why,omitempty"`
	ClientBound bool   `json:"client_bound,omitempty"`
}

// ConcurrencyResult is a whole concurrency sweep (sweep.json with "mode": "concurrency").
// Knee is the largest level that held the SLO, 0 if none did; KneeCost prices its throughput
// when a --cost-per-hour was given.
type ConcurrencyResult struct {
	Mode       string             `json:"mode"`
	SLO        string             `json:"slo"`
	TargetPct  float64            `json:"target_pct"`
	Percentile string             `json:"percentile"`
	Knee       int                `json:"knee"`
	KneeCost   *KneeCost          `json:"knee_cost,omitempty"`
	Points     []ConcurrencyPoint `json:"points"`
}

// ConcurrencyOptions are the concurrency sweep's own settings.
type ConcurrencyOptions struct {
	// Levels are the concurrencies to try, increasing.
	Levels []int
	// TargetPct picks the percentile every limit must hold at: 90, 95 or 99.
	TargetPct float64
	// All runs every level instead of stopping after the first that breaks the SLO.
	All bool
}

// Concurrency replays the trace closed loop at each level (each into Out/concurrency-N, the
// window laid out as that level's users in Out/concurrency-N-trace.parquet, see
// writeClosedLoop, so rows' lines are that file's):
// the level's number of requests in flight, the next drawn in trace order with the trace's own
// lengths and prefixes as soon as one returns, after a warm-up of its own (base.Warmup
// requests, or one per slot when 0). A level holds when the TTFT, ITL, TPOT and e2e limits of
// the SLO each hold at the target percentile, measured from each request's send (in a closed
// loop the wait for a slot is this client's, not the endpoint's), and no more than
// 100-TargetPct percent of the requests failed. The sweep stops after the first level that
// does not hold unless All. It writes sweep.json and sweep.html into base.Out, also for the
// levels finished before an error.
func Concurrency(ctx context.Context, base runner.Config, o ConcurrencyOptions) (*ConcurrencyResult, error) {
	if base.SLO.IsZero() {
		return nil, errors.New("sweep needs --slo: the knee is where the SLO stops holding")
	}
	slo := base.SLO
	pname, err := targetPercentile(o.TargetPct)
	if err != nil {
		return nil, err
	}
	if len(o.Levels) == 0 {
		return nil, errors.New("--concurrency needs at least one level")
	}
	for i, c := range o.Levels {
		if c <= 0 || (i > 0 && c <= o.Levels[i-1]) {
			return nil, fmt.Errorf("--concurrency must be positive and increasing, got %v", o.Levels)
		}
	}
	if base.CostPerHour > 0 && base.GPUs <= 0 {
		return nil, fmt.Errorf("--gpus %d: want 1 or more", base.GPUs)
	}
	if err := os.MkdirAll(base.Out, 0o755); err != nil {
		return nil, fmt.Errorf("creating --out: %w", err)
	}
	name, recs, err := closedLoopWindow(base)
	if err != nil {
		return nil, err
	}
	res := &ConcurrencyResult{Mode: "concurrency", SLO: base.SLO.String(), TargetPct: o.TargetPct, Percentile: pname}
	fail := func(err error) (*ConcurrencyResult, error) {
		if werr := writeConcurrencySweep(base.Out, res); werr != nil {
			err = errors.Join(err, werr)
		}
		return res, err
	}
	for _, c := range o.Levels {
		loop := filepath.Join(base.Out, "concurrency-"+strconv.Itoa(c)+"-trace.parquet")
		if err := writeClosedLoop(loop, recs, c); err != nil {
			return fail(fmt.Errorf("%s: closed loop of %s: %w", loop, name, err))
		}
		cfg := levelConfig(base, loop, c)
		fmt.Fprintf(base.Stderr, "replay sweep: concurrency %d (closed loop) -> %s\n", c, cfg.Out)
		sum, err := runner.Run(ctx, cfg)
		if errors.Is(err, runner.ErrClientBound) && sum != nil {
			res.Points = append(res.Points, ConcurrencyPoint{Concurrency: c, Dir: cfg.Out, Summary: sum, ClientBound: true})
			return fail(fmt.Errorf("concurrency %d: %w; the knee is at most what the levels before it show", c, err))
		}
		if err != nil {
			return fail(fmt.Errorf("concurrency %d: %w", c, err))
		}
		p := ConcurrencyPoint{Concurrency: c, Dir: cfg.Out, Summary: sum}
		p.Why = levelBreaks(sum, slo, pname, o.TargetPct)
		p.Holds = p.Why == ""
		res.Points = append(res.Points, p)
		if p.Holds {
			res.Knee = c
		} else if !o.All {
			break
		}
	}
	if res.Knee > 0 && base.CostPerHour > 0 {
		for _, p := range res.Points {
			if p.Concurrency == res.Knee {
				kc, err := CostAtKnee(base.CostPerHour, base.GPUs, p.Summary.Throughput.OutputTokS)
				if err != nil {
					return fail(fmt.Errorf("cost at the knee: %w", err))
				}
				res.KneeCost = kc
			}
		}
	}
	return res, writeConcurrencySweep(base.Out, res)
}

// levelConfig is base set to replay the closed loop at path with c requests in flight, into
// base.Out/concurrency-c.
func levelConfig(base runner.Config, loop string, c int) runner.Config {
	cfg := base
	cfg.Trace, cfg.Ingest = loop, ingest.Options{Format: "parquet"}
	cfg.Schedule.From, cfg.Schedule.To, cfg.Schedule.Limit, cfg.Limit = 0, 0, 0, 0
	cfg.Schedule.Speed = 1
	cfg.Schedule.MaxConcurrency = c
	if cfg.Warmup == 0 {
		cfg.Warmup = c
	}
	// A closed loop has no schedule to keep: every request is due at once and waits for a
	// slot, so send lateness says nothing (the client's own limits are still judged).
	cfg.MaxLateness = 0
	cfg.MaxErrorRate = 1 // failures are what a sweep measures
	cfg.Out = filepath.Join(base.Out, "concurrency-"+strconv.Itoa(c))
	cfg.Stdout = io.Discard
	return cfg
}

// closedLoopWindow reads base's trace window (its --trace, or the default workload).
func closedLoopWindow(base runner.Config) (string, []trace.Record, error) {
	name, recs, err := runner.Window(base)
	if err != nil {
		return "", nil, err
	}
	if len(recs) == 0 {
		return "", nil, fmt.Errorf("%s: no records in the selected window", name)
	}
	return name, recs, nil
}

// writeClosedLoop writes the window as a closed loop of c users: record i goes to user i mod
// c as its turn i / c, every record due at once. The scheduler gates each user's next turn on
// its previous answer, so c requests are in flight, each user draws its requests in trace
// order, and one user (c = 1) sends the whole window in trace order. Lengths, prefixes and
// options are the trace's; a record without block hashes gets hashes of its own (it shares no
// prefix either way), so that its user's turns are not taken for a growing conversation.
// The trace's own sessions give way to the users.
func writeClosedLoop(path string, recs []trace.Record, c int) error {
	out := make([]trace.Record, len(recs))
	next := uint64(1) << 61
	for i, r := range recs {
		if len(r.BlockHashes) == 0 && r.PromptTokens > 0 {
			r.BlockSize = closedLoopBlock
			r.BlockHashes = make([]uint64, (r.PromptTokens+closedLoopBlock-1)/closedLoopBlock)
			for j := range r.BlockHashes {
				r.BlockHashes[j] = next
				next++
			}
		}
		r.Timestamp = 0
		r.SessionID = "closed-loop-" + strconv.Itoa(i%c)
		r.Turn = i / c
		out[i] = r
	}
	return trace.WriteFile(path, out)
}

// closedLoopBlock is the block size given to records that had no hashes.
const closedLoopBlock = 16

// targetPercentile is the summary's percentile that --target names.
func targetPercentile(target float64) (string, error) {
	switch target {
	case 90:
		return "p90", nil
	case 95:
		return "p95", nil
	case 99:
		return "p99", nil
	}
	return "", fmt.Errorf("--target %v with --concurrency: want 90, 95 or 99 (a level holds when each SLO limit holds at that percentile)", target)
}

// pick is one percentile of a distribution by name.
func pick(d analysis.Dist, name string) float64 {
	switch name {
	case "p90":
		return d.P90
	case "p99":
		return d.P99
	}
	return d.P95
}

// levelBreaks says which SLO limit a level broke ("" when it held): a limit holds when the
// percentile of its metric from send is within it; a level also breaks when more than
// 100-target percent of its requests failed, or none succeeded.
func levelBreaks(s *analysis.Summary, slo analysis.SLO, pname string, target float64) string {
	if s.Requests.OK == 0 {
		return "no request succeeded"
	}
	if failed := 100 * float64(s.Requests.Failed) / float64(s.Requests.Total); failed > 100-target {
		return fmt.Sprintf("%.1f%% of requests failed", failed)
	}
	checks := []struct {
		name  string
		limit float64
		d     analysis.Dist
	}{
		{"ttft", ms(slo.TTFT), s.TTFT}, {"itl", ms(slo.ITL), s.ITL},
		{"tpot", ms(slo.TPOT), s.TPOT}, {"e2e", ms(slo.E2E), s.E2E},
	}
	var broke []string
	for _, c := range checks {
		if c.limit > 0 && pick(c.d, pname) > c.limit {
			broke = append(broke, fmt.Sprintf("%s %s %.1f ms > %g ms", c.name, pname, pick(c.d, pname), c.limit))
		}
	}
	return strings.Join(broke, ", ")
}

// writeConcurrencySweep writes dir/sweep.json and dir/sweep.html for the levels so far.
func writeConcurrencySweep(dir string, res *ConcurrencyResult) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, File), append(b, '\n'), 0o644); err != nil {
		return err
	}
	page := ConcurrencyPage{SLO: res.SLO, Percentile: res.Percentile, Knee: res.Knee, KneeCost: res.KneeCost}
	if slo, err := analysis.ParseSLO(res.SLO); err == nil {
		page.TTFTLimitMS = ms(slo.TTFT)
	}
	for _, p := range res.Points {
		rel, err := filepath.Rel(dir, p.Dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = ""
		}
		page.Levels = append(page.Levels, ConcurrencyLevel{Concurrency: p.Concurrency, Dir: filepath.ToSlash(rel), Summary: p.Summary, Holds: p.Holds, Why: p.Why})
	}
	var buf bytes.Buffer
	if err := WriteConcurrencyHTML(&buf, page, report.Options{}); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, PageFile), err)
	}
	return os.WriteFile(filepath.Join(dir, PageFile), buf.Bytes(), 0o644)
}

// WriteConcurrencyTable prints one line per level, the knee and its cost.
func WriteConcurrencyTable(w io.Writer, r *ConcurrencyResult) {
	fmt.Fprintf(w, "%11s %10s %12s %12s %12s  %s\n", "concurrency", "req/s", "output tok/s", "ttft "+r.Percentile+" ms", "e2e "+r.Percentile+" ms", "holds")
	for _, p := range r.Points {
		s := p.Summary
		holds := "yes"
		if !p.Holds {
			holds = "no: " + p.Why
		}
		fmt.Fprintf(w, "%11d %10.2f %12.1f %12.1f %12.1f  %s\n", p.Concurrency, s.Throughput.ReqS, s.Throughput.OutputTokS, pick(s.TTFT, r.Percentile), pick(s.E2E, r.Percentile), holds)
	}
	if r.Knee == 0 {
		fmt.Fprintf(w, "no concurrency held %s at %s\n", r.SLO, r.Percentile)
		return
	}
	fmt.Fprintf(w, "knee: concurrency %d is the largest level tried at which %s held at %s\n", r.Knee, r.SLO, r.Percentile)
	if r.KneeCost != nil {
		fmt.Fprintf(w, "cost at the knee: %s\n", r.KneeCost)
	}
}

// ms is a duration in milliseconds, as the summary's distributions are.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
