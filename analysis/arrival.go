package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Arrival says whether requests left when the schedule said, in measures that mean the same at
// 3 req/s and at 10,000: how late each left (the lateness distribution), how far the achieved
// per-second rate strayed from the scheduled one, and whether requests the trace puts together
// left together. It replaces a KS distance between inter-arrival gaps, which read 0.3 on runs
// that were on time to the microsecond at thousands of requests a second (sub-millisecond gaps
// reorder harmlessly between senders) and 1.0 on every closed-loop run.
//
// A run whose requests waited for a concurrency cap (closed loop, --max-concurrency) is not
// an arrival test: it follows its cap, not its trace, so Verdict is "capped" and the cap's
// queue wait is given instead.
type Arrival struct {
	// Verdict is "on time", "behind" or "capped"; Why says which measure decided it.
	Verdict string `json:"verdict"`
	Why     string `json:"why,omitempty"`
	// LatenessP99MS repeats the lateness p99 the verdict is judged on.
	LatenessP99MS float64 `json:"lateness_p99_ms"`
	// MaxBehind is the most requests due and not yet sent at any one instant.
	MaxBehind int64 `json:"max_behind"`
	// RateMaxDevReqS is the largest difference, over the run's whole seconds, between the
	// requests sent in a second and those scheduled in it; RateMaxDevPct the same against
	// the mean scheduled rate. Null for a run under two seconds.
	RateMaxDevReqS *float64 `json:"rate_max_dev_req_s"`
	RateMaxDevPct  *float64 `json:"rate_max_dev_pct"`
	// Bursts counts consecutive pairs the schedule puts within BurstWindow of each other;
	// BurstsKeptPct the share of them that left within BurstWindow of each other too.
	Bursts        int64    `json:"bursts"`
	BurstsKeptPct *float64 `json:"bursts_kept_pct"`
	// Queued and QueueWaitP99MS describe a capped run: requests that waited for a slot, and
	// how long.
	Queued         int64   `json:"queued,omitempty"`
	QueueWaitP99MS float64 `json:"queue_wait_p99_ms,omitempty"`
}

const (
	// BurstWindowNS is the gap under which two scheduled requests form a burst that must leave
	// together.
	BurstWindowNS = 1_000_000
	// OnTimeLatenessMS is the lateness p99 under which a run is on time: a millisecond is
	// below any latency an endpoint's users feel, and above this machine's timer floor.
	OnTimeLatenessMS = 1.0
	// OnTimeBurstsPct is the share of bursts under which a run is behind even with its lateness
	// p99 in bounds: sends serialized where the trace has them together. A few bursts spread
	// by a late send are already in the lateness figure (the default run breaks 0-3 of ~80
	// with a lateness p99 of 0.4-0.5 ms), so this flags the systematic case, not those, and
	// never for two broken bursts or fewer.
	OnTimeBurstsPct = 95.0
)

// sendPoint is one request's scheduled and actual send, for the arrival measures.
type sendPoint struct {
	sched, sent int64
}

// arrival derives the measures from every first attempt's send (points, in any order), the
// lateness p99 and how many requests waited for a slot.
func arrival(points []sendPoint, latenessP99MS float64, queued int64, queueWaitP99MS float64) *Arrival {
	if len(points) == 0 {
		return nil
	}
	a := &Arrival{LatenessP99MS: latenessP99MS}
	if queued > 0 {
		a.Verdict, a.Queued, a.QueueWaitP99MS = "capped", queued, queueWaitP99MS
		a.Why = fmt.Sprintf("%d requests waited for a concurrency slot (queue wait p99 %.1f ms): the run follows its cap, not the trace's arrivals", queued, queueWaitP99MS)
		return a
	}
	bySched := slices.Clone(points)
	slices.SortFunc(bySched, func(x, y sendPoint) int { return cmp.Compare(x.sched, y.sched) })
	a.Bursts, a.BurstsKeptPct = bursts(bySched)
	a.MaxBehind = maxBehind(bySched)
	a.RateMaxDevReqS, a.RateMaxDevPct = rateDeviation(bySched)
	switch {
	case latenessP99MS > OnTimeLatenessMS:
		a.Verdict, a.Why = "behind", fmt.Sprintf("send lateness p99 %.3f ms over %.1f ms", latenessP99MS, OnTimeLatenessMS)
	case a.BurstsKeptPct != nil && *a.BurstsKeptPct < OnTimeBurstsPct && a.Bursts-a.keptBursts() > 2:
		a.Verdict, a.Why = "behind", fmt.Sprintf("%.1f%% of %d bursts left together, under %.0f%%", *a.BurstsKeptPct, a.Bursts, OnTimeBurstsPct)
	default:
		a.Verdict = "on time"
	}
	return a
}

// keptBursts is how many bursts left together.
func (a *Arrival) keptBursts() int64 {
	if a.BurstsKeptPct == nil {
		return 0
	}
	return int64(math.Round(*a.BurstsKeptPct * float64(a.Bursts) / 100))
}

// bursts counts the schedule's consecutive pairs within the burst window and the share that
// left within it too.
func bursts(bySched []sendPoint) (int64, *float64) {
	var n, kept int64
	for i := 1; i < len(bySched); i++ {
		p, q := bySched[i-1], bySched[i]
		if q.sched-p.sched > BurstWindowNS {
			continue
		}
		n++
		if d := q.sent - p.sent; d <= BurstWindowNS && d >= -BurstWindowNS {
			kept++
		}
	}
	if n == 0 {
		return 0, nil
	}
	pct := round3(100 * float64(kept) / float64(n))
	return n, &pct
}

// maxBehind is the largest count of requests due and not yet sent at any instant: walking the
// sends in time order, those whose due time had passed when each left, less those sent.
func maxBehind(bySched []sendPoint) int64 {
	sent := make([]int64, len(bySched))
	for i, p := range bySched {
		sent[i] = p.sent
	}
	slices.Sort(sent)
	var worst int64
	due := 0
	for i, at := range sent {
		for due < len(bySched) && bySched[due].sched <= at {
			due++
		}
		if behind := int64(due - i - 1); behind > worst {
			worst = behind
		}
	}
	return worst
}

// rateDeviation compares, second by second from the first scheduled send, the requests sent
// with those scheduled; only the run's whole seconds count, so a short last second does not.
func rateDeviation(bySched []sendPoint) (*float64, *float64) {
	start := bySched[0].sched
	secs := int((bySched[len(bySched)-1].sched - start) / 1e9)
	if secs < 2 {
		return nil, nil
	}
	sched := make([]int64, secs)
	sent := make([]int64, secs)
	for _, p := range bySched {
		if k := (p.sched - start) / 1e9; k < int64(secs) {
			sched[k]++
		}
		if k := (p.sent - start) / 1e9; k >= 0 && k < int64(secs) {
			sent[k]++
		}
	}
	var worst, total int64
	for k := range secs {
		total += sched[k]
		if d := abs64(sent[k] - sched[k]); d > worst {
			worst = d
		}
	}
	dev := float64(worst)
	pct := round3(100 * dev / (float64(total) / float64(secs)))
	return &dev, &pct
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
