package analysis

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/llm-replay/replay/results"
)

// queueing.go splits each request's TTFT into what the calibration predicts one request alone
// takes for its uncached prompt tokens (prefill) and the rest (queueing: waiting for a batch
// slot, for other requests' prefill, for the scheduler), the calibration layer's answer to "is
// p95 TTFT 500 ms because one request takes 500 ms, or because it waited 6 deep?". TTFT is from
// the request's send, so a --max-concurrency wait on this client is not in it (queue_wait_ms
// has that).

// Queueing is summary.json's "queueing", present when the run was given --calibration.
// QueueingMS clamps a request faster than predicted at 0; the means are signed, so noise
// around the curve averages out. QueueingSharePct is the mean queueing over the mean TTFT.
type Queueing struct {
	Curve            string  `json:"curve"`
	Requests         int64   `json:"requests"`
	PredictedMS      Dist    `json:"predicted_ttft_ms"`
	QueueingMS       Dist    `json:"queueing_ms"`
	MeanTTFTMS       float64 `json:"mean_ttft_ms"`
	MeanPredictedMS  float64 `json:"mean_predicted_ttft_ms"`
	MeanQueueingMS   float64 `json:"mean_queueing_ms"`
	QueueingSharePct float64 `json:"queueing_share_pct"`
	// TPOT compares each request's TPOT with the calibration's TPOT alone at its context,
	// when the calibration has a TPOT curve.
	TPOT *TPOTSplit `json:"tpot,omitempty"`
}

// TPOTSplit is the decode side of the split: the mean measured TPOT against the mean the
// calibration predicts for one request alone at the same contexts (SlowdownX = their ratio:
// what sharing each decode step with the batch costs), and, where the endpoint's metrics gave
// its running requests during each decode, the same by batch size.
type TPOTSplit struct {
	Curve           string      `json:"curve"`
	Requests        int64       `json:"requests"`
	MeanTPOTMS      float64     `json:"mean_tpot_ms"`
	MeanPredictedMS float64     `json:"mean_predicted_tpot_ms"`
	SlowdownX       float64     `json:"slowdown_x"`
	ByBatch         []BatchTPOT `json:"by_batch,omitempty"`
}

// BatchTPOT is the mean TPOT of the requests whose decode saw, on average, between
// RunningMin and RunningMax requests running in the engine (its /metrics samples between
// their first and last token), in power-of-two buckets: 1, 2, 3-4, 5-8, 9-16 ...
type BatchTPOT struct {
	RunningMin      int     `json:"running_min"`
	RunningMax      int     `json:"running_max"`
	Requests        int64   `json:"requests"`
	MeanTPOTMS      float64 `json:"mean_tpot_ms"`
	MeanPredictedMS float64 `json:"mean_predicted_tpot_ms"`
}

// QueueingRequest is one request's split: its id, send offset, uncached prompt tokens, TTFT,
// the calibration's predicted TTFT and the rest.
type QueueingRequest struct {
	RequestID      string
	SentNS         int64
	UncachedTokens int
	TTFTMS         float64
	PredictedMS    float64
	QueueingMS     float64
	// TPOTMS and PredictedTPOTMS are 0 when the request had under two tokens or the
	// calibration no TPOT curve; FirstS and LastS are its first and last token (s from start).
	TPOTMS, PredictedTPOTMS float64
	FirstS, LastS           float64
}

// queueAgg aggregates the split for Metrics; nil without a calibration (every method is a
// no-op on nil).
type queueAgg struct {
	cal                    *Calibration
	pred, queue            *latency
	reqs                   []QueueingRequest
	sumTTFT, sumPred, sumQ float64
}

func newQueueAgg(c *Calibration) *queueAgg {
	if c == nil {
		return nil
	}
	return &queueAgg{cal: c, pred: newLatency(), queue: newLatency()}
}

// add splits one successful streamed request's TTFT (ns, from send).
func (q *queueAgg) add(r *results.Row, ttftNS int64) {
	if q == nil {
		return
	}
	prompt := int(r.TargetPromptTokens)
	if r.PromptTokens >= 0 {
		prompt = int(r.PromptTokens)
	}
	uncached := prompt
	if r.CachedTokens > 0 {
		uncached = max(0, prompt-int(r.CachedTokens))
	}
	ttft := float64(ttftNS) / 1e6
	pred := q.cal.PredictTTFTMS(uncached)
	qr := QueueingRequest{RequestID: r.RequestID, SentNS: r.SentNS, UncachedTokens: uncached, TTFTMS: ttft, PredictedMS: pred, QueueingMS: ttft - pred,
		FirstS: float64(r.FirstTokenNS) / 1e9, LastS: float64(r.LastTokenNS) / 1e9}
	if out := outputTokens(r); q.cal.TPOT != nil && out >= 2 && r.LastTokenNS > r.FirstTokenNS {
		qr.TPOTMS = float64(r.LastTokenNS-r.FirstTokenNS) / 1e6 / float64(out-1)
		qr.PredictedTPOTMS = math.Max(0, q.cal.TPOT.At(float64(prompt)+float64(out)/2))
	}
	q.reqs = append(q.reqs, qr)
	q.pred.recordNS(int64(pred * 1e6))
	q.queue.recordNS(int64(math.Max(0, qr.QueueingMS) * 1e6))
	q.sumTTFT += ttft
	q.sumPred += pred
	q.sumQ += qr.QueueingMS
}

// summary is the split so far; server holds the endpoint's running counts, for TPOT by batch.
func (q *queueAgg) summary(server []ServerPoint) *Queueing {
	if q == nil {
		return nil
	}
	s := &Queueing{Curve: "TTFT = " + q.cal.TTFT.String(), Requests: int64(len(q.reqs)), PredictedMS: q.pred.dist(), QueueingMS: q.queue.dist()}
	if n := float64(len(q.reqs)); n > 0 {
		s.MeanTTFTMS, s.MeanPredictedMS, s.MeanQueueingMS = round3(q.sumTTFT/n), round3(q.sumPred/n), round3(q.sumQ/n)
		if q.sumTTFT > 0 {
			s.QueueingSharePct = round3(100 * q.sumQ / q.sumTTFT)
		}
	}
	s.TPOT = q.tpotSplit(server)
	return s
}

// tpotSplit compares measured and predicted TPOT overall and by the engine's batch size.
func (q *queueAgg) tpotSplit(server []ServerPoint) *TPOTSplit {
	if q.cal.TPOT == nil {
		return nil
	}
	type acc struct{ n, tpot, pred float64 }
	var all acc
	byRun := map[int]*acc{}
	for _, r := range q.reqs {
		if r.TPOTMS <= 0 {
			continue
		}
		all.n, all.tpot, all.pred = all.n+1, all.tpot+r.TPOTMS, all.pred+r.PredictedTPOTMS
		var sum, n float64
		for _, p := range server {
			if p.OffsetS >= r.FirstS && p.OffsetS <= r.LastS && !math.IsNaN(p.Running) {
				sum, n = sum+p.Running, n+1
			}
		}
		if n == 0 {
			continue
		}
		k := 1 // the bucket's upper bound: the least power of two at or above the mean
		for float64(k) < math.Round(sum/n) {
			k *= 2
		}
		a := byRun[k]
		if a == nil {
			a = &acc{}
			byRun[k] = a
		}
		a.n, a.tpot, a.pred = a.n+1, a.tpot+r.TPOTMS, a.pred+r.PredictedTPOTMS
	}
	if all.n == 0 {
		return nil
	}
	t := &TPOTSplit{Curve: "TPOT = " + q.cal.TPOT.String(), Requests: int64(all.n), MeanTPOTMS: round3(all.tpot / all.n), MeanPredictedMS: round3(all.pred / all.n)}
	if all.pred > 0 {
		t.SlowdownX = round3(all.tpot / all.pred)
	}
	keys := make([]int, 0, len(byRun))
	for k := range byRun {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		a := byRun[k]
		t.ByBatch = append(t.ByBatch, BatchTPOT{RunningMin: k/2 + 1, RunningMax: k, Requests: int64(a.n), MeanTPOTMS: round3(a.tpot / a.n), MeanPredictedMS: round3(a.pred / a.n)})
	}
	return t
}

// QueueingRequests is every decomposed request of the run so far, in the order they finished;
// nil without a calibration.
func (m *Metrics) QueueingRequests() []QueueingRequest {
	if m.queue == nil {
		return nil
	}
	return append([]QueueingRequest(nil), m.queue.reqs...)
}

// QueueingCSV writes the per-request split as CSV (queueing.csv beside the run's files).
func QueueingCSV(reqs []QueueingRequest) []byte {
	var b strings.Builder
	b.WriteString("request_id,sent_s,uncached_prompt_tokens,ttft_ms,predicted_ttft_ms,queueing_ms,tpot_ms,predicted_tpot_ms\n")
	for _, r := range reqs {
		fmt.Fprintf(&b, "%s,%.6f,%d,%.3f,%.3f,%.3f,%.3f,%.3f\n", strconv.Quote(r.RequestID), float64(r.SentNS)/1e9, r.UncachedTokens, r.TTFTMS, r.PredictedMS, r.QueueingMS, r.TPOTMS, r.PredictedTPOTMS)
	}
	return []byte(b.String())
}

// QueueingPlot is what report.html draws of a calibrated run's split.
type QueueingPlot struct {
	// Requests is every decomposed request, in the order they finished (not a copy).
	Requests []QueueingRequest
	// TTFTModel names the calibration's TTFT curve.
	TTFTModel string
	// SharePct is the mean queueing share of TTFT over the run.
	SharePct float64
	// TPOT is the split of TPOT by the engine's batch size; nil without its scrapes.
	TPOT *TPOTSplit
}

// QueueingPlot is the run's split for its plots; nil without a calibration or requests.
func (m *Metrics) QueueingPlot() *QueueingPlot {
	if m.queue == nil || len(m.queue.reqs) == 0 {
		return nil
	}
	return &QueueingPlot{Requests: m.queue.reqs, TTFTModel: m.queue.cal.TTFT.Model,
		SharePct: m.queue.summary(nil).QueueingSharePct, TPOT: m.queue.tpotSplit(m.server)}
}
