package tracestat

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/trace"
)

// Shape summarizes a trace for `replay ingest --stats`: how long and how fast, how bursty,
// how long the prompts and outputs are, and how much an ideal prefix cache could reuse.
type Shape struct {
	Records int64 `json:"records"`
	// SpanSeconds is the last record's offset from the first.
	SpanSeconds float64 `json:"span_s"`
	// MeanRate is records per second over the span.
	MeanRate float64 `json:"mean_rate_rps"`
	// GapCV is the coefficient of variation of inter-arrival gaps (1 for Poisson arrivals,
	// above 1 for bursty traffic).
	GapCV float64 `json:"gap_cv"`
	// PeakSecond is the most records in one second (counted from the trace origin), and
	// PeakToMean that count over MeanRate.
	PeakSecond int64   `json:"peak_second_requests"`
	PeakToMean float64 `json:"peak_to_mean"`
	// SameInstant counts records sharing their timestamp with the previous one.
	SameInstant int64 `json:"same_instant"`

	Prompt Distribution `json:"prompt_tokens"`
	Output Distribution `json:"output_tokens"`

	// Prefix is the ideal (infinite cache) block hit count over records with hashes.
	HashedRecords int64              `json:"hashed_records"`
	BlockSize     int                `json:"block_size,omitempty"`
	Prefix        prefixcache.Result `json:"prefix_blocks"`
	// IdealHitRate is Prefix.Hits/Prefix.Blocks: the share of prompt blocks seen earlier.
	IdealHitRate float64 `json:"ideal_block_hit_rate"`
}

// Distribution holds nearest-rank percentiles of a token count.
type Distribution struct {
	Mean float64 `json:"mean"`
	P50  int     `json:"p50"`
	P90  int     `json:"p90"`
	P95  int     `json:"p95"`
	P99  int     `json:"p99"`
	Max  int     `json:"max"`
}

// ShapeBuilder accumulates a Shape record by record (8 bytes per record for the percentiles,
// plus one map entry per distinct block hash).
type ShapeBuilder struct {
	n                int64
	first, last      time.Duration
	prevTS           time.Duration
	gapMean, gapM2   float64 // Welford running mean and sum of squares
	gaps             int64
	perSecond        map[int64]int64
	same             int64
	prompts, outputs []int32
	cache            *prefixcache.Cache
	hashed           int64
	blockSize        int
}

// NewShapeBuilder starts an empty summary.
func NewShapeBuilder() *ShapeBuilder {
	return &ShapeBuilder{perSecond: map[int64]int64{}, cache: prefixcache.New(0)}
}

// Add counts one record; records are expected in time order, as Readers emit them.
func (b *ShapeBuilder) Add(r trace.Record) {
	if b.n == 0 {
		b.first = r.Timestamp
	} else {
		gap := (r.Timestamp - b.prevTS).Seconds()
		if r.Timestamp == b.prevTS {
			b.same++
		}
		b.gaps++
		d := gap - b.gapMean
		b.gapMean += d / float64(b.gaps)
		b.gapM2 += d * (gap - b.gapMean)
	}
	b.n++
	b.prevTS = r.Timestamp
	b.last = max(b.last, r.Timestamp)
	b.perSecond[int64((r.Timestamp-b.first)/time.Second)]++
	b.prompts = append(b.prompts, int32(min(r.PromptTokens, math.MaxInt32)))
	b.outputs = append(b.outputs, int32(min(r.OutputTokens, math.MaxInt32)))
	if len(r.BlockHashes) > 0 {
		b.hashed++
		b.cache.Add(r.BlockHashes)
		if b.blockSize == 0 {
			b.blockSize = r.BlockSize
		}
	}
}

// Shape computes the summary of the records added so far.
func (b *ShapeBuilder) Shape() Shape {
	s := Shape{Records: b.n, SameInstant: b.same, HashedRecords: b.hashed, BlockSize: b.blockSize}
	if b.n == 0 {
		return s
	}
	s.SpanSeconds = (b.last - b.first).Seconds()
	if s.SpanSeconds > 0 {
		s.MeanRate = float64(b.n) / s.SpanSeconds
	}
	if b.gaps > 1 && b.gapMean > 0 {
		s.GapCV = math.Sqrt(b.gapM2/float64(b.gaps-1)) / b.gapMean
	}
	for _, c := range b.perSecond {
		s.PeakSecond = max(s.PeakSecond, c)
	}
	if s.MeanRate > 0 {
		s.PeakToMean = float64(s.PeakSecond) / s.MeanRate
	}
	s.Prompt = distribution(b.prompts)
	s.Output = distribution(b.outputs)
	s.Prefix = b.cache.Result()
	s.IdealHitRate = s.Prefix.Rate()
	return s
}

// Stats summarizes records that are already in memory.
func Stats(records []trace.Record) Shape {
	b := NewShapeBuilder()
	for _, r := range records {
		b.Add(r)
	}
	return b.Shape()
}

func distribution(v []int32) Distribution {
	if len(v) == 0 {
		return Distribution{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += float64(x)
	}
	// Nearest rank: the smallest value with at least p of the values at or below it.
	rank := func(p float64) int {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return int(s[max(i, 0)])
	}
	return Distribution{Mean: sum / float64(len(s)), P50: rank(0.50), P90: rank(0.90), P95: rank(0.95), P99: rank(0.99), Max: int(s[len(s)-1])}
}

// WriteText prints the summary for people.
func (s Shape) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, `records        %d
span           %.1f s
mean rate      %.2f req/s
burstiness     gap CV %.2f, busiest second %d req (%.1fx mean), %d records share the previous timestamp
prompt tokens  mean %.0f  p50 %d  p90 %d  p95 %d  p99 %d  max %d
output tokens  mean %.0f  p50 %d  p90 %d  p95 %d  p99 %d  max %d
`, s.Records, s.SpanSeconds, s.MeanRate, s.GapCV, s.PeakSecond, s.PeakToMean, s.SameInstant,
		s.Prompt.Mean, s.Prompt.P50, s.Prompt.P90, s.Prompt.P95, s.Prompt.P99, s.Prompt.Max,
		s.Output.Mean, s.Output.P50, s.Output.P90, s.Output.P95, s.Output.P99, s.Output.Max)
	if err != nil {
		return err
	}
	if s.HashedRecords == 0 {
		_, err = fmt.Fprintln(w, "prefix cache   no block hashes in this trace")
		return err
	}
	_, err = fmt.Fprintf(w, "prefix cache   ideal block hit rate %.1f%% (%d of %d blocks of %d tokens, infinite cache)\n",
		100*s.IdealHitRate, s.Prefix.Hits, s.Prefix.Blocks, s.BlockSize)
	return err
}
