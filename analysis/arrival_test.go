package analysis

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

// poisson returns n scheduled offsets of a Poisson process at rate per second.
func poisson(n int, rate float64, seed uint64) []int64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]int64, n)
	var t float64
	for i := range out {
		t += rng.ExpFloat64() / rate * 1e9
		out[i] = int64(t)
	}
	return out
}

// A 10,000 req/s Poisson schedule sent within 0-80 µs of each due time, so sub-millisecond
// neighbours often leave out of order (which made the KS distance read ~0.3), is on time:
// every burst kept, the per-second rate within a few requests of the schedule.
func TestArrivalOnTimeAtHighRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	sched := poisson(30000, 10000, 1)
	pts := make([]sendPoint, len(sched))
	for i, s := range sched {
		pts[i] = sendPoint{sched: s, sent: s + rng.Int64N(80_000)}
	}
	a := arrival(pts, 0.08, 0, 0)
	if a.Verdict != "on time" || a.BurstsKeptPct == nil || *a.BurstsKeptPct != 100 || a.Bursts < 20000 {
		t.Fatalf("%+v", a)
	}
	if a.RateMaxDevReqS == nil || *a.RateMaxDevReqS > 5 || a.MaxBehind > 10 {
		t.Fatalf("rate deviation %v, max behind %d", *a.RateMaxDevReqS, a.MaxBehind)
	}
}

// A run that falls behind (each send 0.2 ms later than the one before would be) is reported
// behind, with the backlog and the per-second shortfall it built.
func TestArrivalBehind(t *testing.T) {
	sched := poisson(5000, 1000, 2)
	pts := make([]sendPoint, len(sched))
	var clientFree int64
	for i, s := range sched {
		sent := max(s, clientFree) // a client that needs 1.2 ms per send, against 1 ms gaps
		clientFree = sent + 1_200_000
		pts[i] = sendPoint{sched: s, sent: sent}
	}
	a := arrival(pts, 800, 0, 0) // the lateness p99 such a run reports
	if a.Verdict != "behind" || a.MaxBehind < 100 || a.RateMaxDevReqS == nil || *a.RateMaxDevReqS < 100 {
		t.Fatalf("%+v (rate dev %v)", a, *a.RateMaxDevReqS)
	}
	// Bursts broken alone make a run behind, even with a small lateness p99: sends serialized
	// 5 ms apart where the trace has pairs 0.1 µs apart. Two broken bursts or fewer do not.
	var pairs []sendPoint
	for k := range int64(4) {
		at := k * 100_000_000
		pairs = append(pairs, sendPoint{at, at}, sendPoint{at + 100, at + 5_000_000})
	}
	if b := arrival(pairs, 0.5, 0, 0); b.Verdict != "behind" || b.Bursts != 4 || *b.BurstsKeptPct != 0 {
		t.Fatalf("broken bursts: %+v", b)
	}
	if b := arrival(pairs[:4], 0.5, 0, 0); b.Verdict != "on time" || b.Bursts != 2 {
		t.Fatalf("two broken bursts: %+v", b)
	}
}

// A run whose requests waited for a concurrency slot reports the cap, not an arrival test.
func TestArrivalCapped(t *testing.T) {
	rows := make([]results.Row, 0, 10)
	for i := range 10 {
		r := testenv.OKRow(strconv.Itoa(i), 0, 10)
		r.QueueWaitNS = int64(i) * 5 * ms
		rows = append(rows, r)
	}
	a := summarize(t, Options{}, rows...).Fidelity.Arrival
	if a == nil || a.Verdict != "capped" || a.Queued != 9 || a.QueueWaitP99MS < 40 {
		t.Fatalf("%+v", a)
	}
}

// Through the rows: lateness counts to the written byte when the row has it.
func TestArrivalFromRowsUsesWritten(t *testing.T) {
	var rows []results.Row
	for i := range 50 {
		r := testenv.OKRow(strconv.Itoa(i), int64(i)*10, 5)
		r.ScheduledNS = r.SentNS
		r.WrittenNS = r.SentNS + 3*ms // three milliseconds to connect and write
		rows = append(rows, r)
	}
	s := summarize(t, Options{}, rows...)
	if s.Lateness.P50 < 2.9 || s.Fidelity.Arrival.Verdict != "behind" {
		t.Fatalf("lateness p50 %v ms, arrival %+v", s.Lateness.P50, s.Fidelity.Arrival)
	}
}
