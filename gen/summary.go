package gen

import (
	"fmt"

	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/trace"
)

// Summary is what `replay gen` says about a trace on stderr.
type Summary struct {
	Records int
	// Sessions counts distinct session ids; MultiTurn is the share of records that carry one.
	Sessions  int
	MultiTurn float64
	// IdealHit is the block hit rate of an infinite prefix cache over the trace (what
	// `replay cache-sim` prints), at BlockSize tokens per block.
	IdealHit  float64
	BlockSize int
	Span      float64 // seconds from the first to the last arrival
}

// Summarize computes a trace's Summary.
func Summarize(recs []trace.Record) Summary {
	s := Summary{Records: len(recs)}
	cache := prefixcache.New(0)
	seen := map[string]bool{}
	inSession := 0
	for _, r := range recs {
		cache.Add(r.BlockHashes)
		s.BlockSize = r.BlockSize
		if r.SessionID != "" {
			inSession++
			seen[r.SessionID] = true
		}
	}
	s.Sessions = len(seen)
	s.IdealHit = cache.Result().Rate()
	if len(recs) > 0 {
		s.MultiTurn = float64(inSession) / float64(len(recs))
		s.Span = (recs[len(recs)-1].Timestamp - recs[0].Timestamp).Seconds()
	}
	return s
}

func (s Summary) String() string {
	rate := 0.0
	if s.Span > 0 {
		rate = float64(s.Records) / s.Span
	}
	return fmt.Sprintf("%d records over %.0f s (%.2f req/s), %d sessions (%.0f%% of requests multi-turn), ideal prefix hit rate %.1f%% (%d-token blocks)",
		s.Records, s.Span, rate, s.Sessions, 100*s.MultiTurn, 100*s.IdealHit, s.BlockSize)
}
