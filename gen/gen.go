package gen

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/llm-replay/replay/trace"
)

// Random streams of one part of a blend: each purpose draws from its own PCG stream, so that
// (say) one more draw per chat turn does not shift every arrival time.
const (
	streamPlan = iota + 1
	streamArrivals
	streamEstimate
)

func stream(seed uint64, part, purpose int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(part)<<8|uint64(purpose)))
}

// Records generates the trace cfg describes, as the records its JSONL file ingests to: in
// time order, the first at 0, timestamps in whole milliseconds, Line the 1-based line in the
// file and Source "gen:SHAPE:seedN".
func Records(cfg Config) ([]trace.Record, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	var reqs []request
	for i, p := range blend(cfg.Shape) {
		reqs = append(reqs, generate(cfg, i, p)...)
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("no request falls in gen.Config.Duration (--duration) %v at Rate (--rate) %v", cfg.Duration, cfg.Rate)
	}
	return finish(cfg, reqs), nil
}

// generate plans one part's units with bursty (Gamma renewal) start times over the duration
// and keeps the requests that arrive within it.
func generate(cfg Config, idx int, pt part) []request {
	tag := uint64(idx + 1)
	sh := newShape(pt.name, tag)
	d := cfg.Duration.Seconds()
	// Units that start late lose their later turns to the end of the window, so units must
	// start more often than rate/turns-per-unit for the window to hold rate x duration.
	perUnit := keptPerUnit(sh, d, stream(cfg.Seed, idx, streamEstimate))
	meanGap := perUnit / (cfg.Rate * pt.share)
	arr := stream(cfg.Seed, idx, streamArrivals)
	p := &planner{r: stream(cfg.Seed, idx, streamPlan), tag: tag}
	var out []request
	unit := 0
	for t := arr.Float64() * meanGap; t < d; t += gammaGap(arr, sh.burst(), meanGap) {
		for _, q := range sh.plan(p, t) {
			if q.at >= d {
				break
			}
			q.part, q.unit, q.sessioned = idx, unit, sh.sessions()
			out = append(out, q)
		}
		unit++
	}
	return out
}

// estimateUnits is how many units keptPerUnit plans: enough for a 1% estimate, a few ms.
const estimateUnits = 2000

// keptPerUnit is the mean number of a unit's requests that fall in a window of d seconds when
// the unit starts uniformly in it: sum over its requests of (d - offset)/d, averaged over
// units planned from their own stream (their ids are thrown away).
func keptPerUnit(sh shape, d float64, r *rand.Rand) float64 {
	p := &planner{r: r}
	total := 0.0
	for range estimateUnits {
		reqs := sh.plan(p, 0)
		for _, q := range reqs {
			total += max(0, d-q.at) / d
		}
	}
	return max(total/estimateUnits, 1e-9)
}

// finish sorts the requests into trace order, numbers their blocks in that order and makes
// the records, with session ids on the units that kept more than one turn.
func finish(cfg Config, reqs []request) []trace.Record {
	ms := func(q *request) int64 { return int64(math.Round(q.at * 1000)) }
	slices.SortFunc(reqs, func(a, b request) int {
		return cmp.Or(cmp.Compare(ms(&a), ms(&b)), cmp.Compare(a.part, b.part), cmp.Compare(a.unit, b.unit), cmp.Compare(a.turn, b.turn))
	})
	sessions := sessionIDs(cfg, reqs)
	ids := newBlockIDs(cfg.BlockSize)
	origin := ms(&reqs[0])
	src := cfg.source()
	recs := make([]trace.Record, len(reqs))
	for i := range reqs {
		q := &reqs[i]
		key := [2]int{q.part, q.unit}
		recs[i] = trace.Record{
			Timestamp:    time.Duration(ms(q)-origin) * time.Millisecond,
			PromptTokens: q.prompt,
			OutputTokens: q.output,
			BlockHashes:  ids.ids(q.segs, nil),
			BlockSize:    cfg.BlockSize,
			SessionID:    sessions[key],
			Source:       src,
			Line:         int64(i + 1),
		}
		if recs[i].SessionID != "" {
			recs[i].Turn = q.turn
		}
	}
	return recs
}

// sessionIDs names the units of sessioned shapes that kept two or more requests, in order of
// their first request in the trace: "chat-1", "agent-1", ... A unit left with one request is a
// plain single-turn request.
func sessionIDs(cfg Config, reqs []request) map[[2]int]string {
	parts := blend(cfg.Shape)
	count := map[[2]int]int{}
	for _, q := range reqs {
		count[[2]int{q.part, q.unit}]++
	}
	names := map[[2]int]string{}
	next := make([]int, len(parts))
	for _, q := range reqs {
		key := [2]int{q.part, q.unit}
		if _, done := names[key]; done || count[key] < 2 || !q.sessioned {
			continue
		}
		next[q.part]++
		names[key] = fmt.Sprintf("%s-%d", parts[q.part].name, next[q.part])
	}
	return names
}
