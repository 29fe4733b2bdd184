package testenv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/llm-replay/replay/results"
)

// rows.go is the one source of invented result rows for the tests of what reads them
// (analysis's figures, report's pages): a seeded synthetic run, the golden run, and a single
// successful request.

const ms = int64(time.Millisecond)

// OKRow is a successful request sent on schedule at sentMS whose first token came ttftMS later
// and which ended at the last chunk.
func OKRow(id string, sentMS, ttftMS int64, chunkGapsMS ...int64) results.Row {
	sent := sentMS * ms
	first := sent + ttftMS*ms
	chunks := []int64{first}
	for _, g := range chunkGapsMS {
		chunks = append(chunks, chunks[len(chunks)-1]+g*ms)
	}
	last := chunks[len(chunks)-1]
	return results.Row{
		RequestID: id, OriginalTimestampNS: sent, ScheduledNS: sent, SentNS: sent,
		FirstTokenNS: first, LastTokenNS: last, DoneNS: last, ChunkNS: chunks,
		TargetPromptTokens: 100, TargetOutputTokens: int32(len(chunks)),
		PromptTokens: 100, CompletionTokens: int32(len(chunks)), HTTPStatus: 200,
	}
}

// SynthRun describes a seeded synthetic run: Poisson arrivals, lognormal TTFT and ITL, a few
// failures and warmup rows. It stands in for a real run where a test needs many realistic rows.
type SynthRun struct {
	N          int
	Seed       uint64
	Rate       float64 // arrivals per second at the run's speed
	Speed      float64
	TTFTMS     float64 // median TTFT
	TTFTSigma  float64 // lognormal sigma of TTFT
	ITLMS      float64 // median inter-token gap
	MaxOut     int     // output tokens uniform in [1, maxOut]
	ErrRate    float64
	Warmup     int
	NoUsageMod int // every noUsageMod-th row has no usage (0: all have usage)
}

// SynthRows are the rows of the run sp describes, the same for the same sp.
func SynthRows(sp SynthRun) []results.Row {
	rng := rand.New(rand.NewPCG(sp.Seed, 0x5eed))
	speed := sp.Speed
	if speed == 0 {
		speed = 1
	}
	classes := []string{"http_429", "timeout", "http_5xx", "stream_broken"}
	rows := make([]results.Row, 0, sp.N+sp.Warmup)
	var t float64 // seconds, at run speed
	for i := 0; i < sp.N+sp.Warmup; i++ {
		warm := i < sp.Warmup
		if !warm {
			t += rng.ExpFloat64() / sp.Rate
		}
		sched := int64(t * 1e9)
		late := int64(rng.IntN(300_000)) // up to 0.3 ms
		sent := sched + late
		ttft := int64(sp.TTFTMS * math.Exp(sp.TTFTSigma*rng.NormFloat64()) * 1e6)
		out := 1 + rng.IntN(sp.MaxOut)
		chunks := make([]int64, out)
		c := sent + ttft
		for k := range chunks {
			if k > 0 {
				c += int64(sp.ITLMS * math.Exp(0.3*rng.NormFloat64()) * 1e6)
			}
			chunks[k] = c
		}
		prompt := int32(100 + rng.IntN(2000))
		r := results.Row{
			RequestID: fmt.Sprintf("r%05d", i), Warmup: warm,
			OriginalTimestampNS: int64(t * speed * 1e9), ScheduledNS: sched, SentNS: sent,
			FirstTokenNS: chunks[0], LastTokenNS: chunks[out-1], DoneNS: chunks[out-1] + 200_000,
			ChunkNS: chunks, TargetPromptTokens: prompt, TargetOutputTokens: int32(out),
			PromptTokens: prompt, CompletionTokens: int32(out), CachedTokens: prompt / 512 * 256,
			HTTPStatus: 200, Endpoint: "sim",
		}
		if sp.NoUsageMod > 0 && i%sp.NoUsageMod == 0 {
			r.PromptTokens, r.CompletionTokens, r.CachedTokens = -1, -1, 0
		}
		if !warm && rng.Float64() < sp.ErrRate {
			cl := classes[rng.IntN(len(classes))]
			r.ErrorClass, r.ErrorMessage, r.HTTPStatus = cl, "synthetic "+cl, 500
			r.FirstTokenNS, r.LastTokenNS, r.ChunkNS = 0, 0, nil
			r.DoneNS = sent + ttft
			r.PromptTokens, r.CompletionTokens, r.CachedTokens = -1, -1, 0
		}
		rows = append(rows, r)
	}
	return rows
}

// GoldenRun is the fixed input of the golden report and table (package report) and of the
// figures read back from its folder (package analysis).
var GoldenRun = SynthRun{N: 600, Seed: 7, Rate: 20, Speed: 2, TTFTMS: 120, TTFTSigma: 0.5,
	ITLMS: 25, MaxOut: 60, ErrRate: 0.03, Warmup: 3, NoUsageMod: 50}

// PopulationRows are one run's rows in three populations: streamed plain, non-streamed JSON (no
// chunk times: measured end to end), streamed tools sent unforced, and a request cancelled as
// its log says.
func PopulationRows() []results.Row {
	plain := func(r results.Row) results.Row { r.Population = "stream/plain"; return r }
	a := plain(OKRow("a", 0, 100, 10, 10))
	b := plain(OKRow("b", 10, 300, 10))
	ns := results.Row{RequestID: "n", SentNS: 20 * ms, ScheduledNS: 20 * ms, DoneNS: 20*ms + 2000*ms,
		TargetPromptTokens: 100, TargetOutputTokens: 40, PromptTokens: 100, CompletionTokens: 40,
		HTTPStatus: 200, Population: "nostream/json"}
	tools := OKRow("t", 30, 50, 10)
	tools.Population, tools.Unforced, tools.CompletionTokens = "stream/tools", true, 1 // stopped early
	cut := OKRow("c", 40, 80, 10)
	cut.Population, cut.CancelledAsLogged, cut.DoneNS = "stream/plain", true, 40*ms+500*ms
	return []results.Row{a, b, ns, tools, cut}
}
