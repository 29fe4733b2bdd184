package ingest

import (
	"github.com/llm-replay/replay/trace"
)

// CachedBlockSize is the tokens per block of the hashes given to records that log their cached
// prompt tokens but no hashes: vLLM's and SGLang's default page, so a replay against them (or
// the simulator) hits at the granularity the logged counts were made at. A logged count is
// shared to the block below it.
const CachedBlockSize = 16

// donorsKept bounds the earlier requests remembered per key: the donor is the latest one long
// enough, almost always among the last few.
const donorsKept = 32

// CachedPrefixes gives records that log their cached prompt tokens (Options.CachedTokens) and
// no block hashes hashes that share exactly that many tokens, to the block and never the
// prompt's last token (which an engine always computes), with the latest earlier record of the
// same session that is long enough, then fresh blocks: a replay then hits the prefix cache as
// the log says it did. Records that do not log cached tokens are left alone, without hashes,
// and replay with prefixes of their own. Records must come in arrival order; memory is bounded
// by the sessions seen (donorsKept hash lists each).
type CachedPrefixes struct {
	fresh  uint64
	donors map[string][][]uint64
	// Unplaced counts records whose cached tokens found no earlier record long enough to
	// share them (the log's first requests of a session, or a cache warmed before it began).
	Unplaced int64
}

// Apply gives r its hashes, when it logs cached tokens and has none.
func (c *CachedPrefixes) Apply(r *trace.Record) {
	if r.Options == nil || r.Options.CachedTokens == nil || len(r.BlockHashes) > 0 {
		return
	}
	if c.donors == nil {
		c.donors = map[string][][]uint64{}
	}
	blocks := (r.PromptTokens + CachedBlockSize - 1) / CachedBlockSize
	shared := min(*r.Options.CachedTokens, max(r.PromptTokens-1, 0)) / CachedBlockSize
	hashes := make([]uint64, 0, blocks)
	if shared > 0 {
		for _, d := range c.donors[r.SessionID] {
			if len(d) >= shared {
				hashes = append(hashes, d[:shared]...)
				break
			}
		}
		if len(hashes) == 0 {
			c.Unplaced++
		}
	}
	for len(hashes) < blocks {
		c.fresh++
		hashes = append(hashes, c.fresh*0x9e3779b97f4a7c15|1)
	}
	r.BlockHashes, r.BlockSize = hashes, CachedBlockSize
	list := append([][]uint64{hashes}, c.donors[r.SessionID]...) // latest first; the oldest falls off
	c.donors[r.SessionID] = list[:min(len(list), donorsKept)]
}

// cachedPrefixReader applies CachedPrefixes to a reader's records.
type cachedPrefixReader struct {
	Reader
	c CachedPrefixes
}

func (r *cachedPrefixReader) Next() (trace.Record, error) {
	rec, err := r.Reader.Next()
	if err == nil {
		r.c.Apply(&rec)
	}
	return rec, err
}

func (r *cachedPrefixReader) Counts() Counts {
	c := r.Reader.Counts()
	c.CachedUnplaced = r.c.Unplaced
	return c
}
