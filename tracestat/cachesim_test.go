package tracestat

import (
	"context"
	"io"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// records is an ingest.Reader over records in memory.
type records struct{ recs []trace.Record }

func (r *records) Next() (trace.Record, error) {
	if len(r.recs) == 0 {
		return trace.Record{}, io.EOF
	}
	rec := r.recs[0]
	r.recs = r.recs[1:]
	return rec, nil
}
func (r *records) Counts() ingest.Counts { return ingest.Counts{} }
func (r *records) Close() error          { return nil }

// TestCacheSim: blocks seen before hit in an infinite cache; a one-block LRU keeps only the
// last request's first block (eviction takes a prefix's tail first), so only block 1 hits.
func TestCacheSim(t *testing.T) {
	recs := []trace.Record{{BlockHashes: []uint64{1, 2}}, {BlockHashes: []uint64{1, 3}}, {BlockHashes: []uint64{1, 2}}}
	res, err := CacheSim(context.Background(), &records{recs}, 0)
	if err != nil || res.Hits != 3 || res.Blocks != 6 {
		t.Fatalf("infinite: %+v, %v", res, err)
	}
	res, err = CacheSim(context.Background(), &records{recs}, 1)
	if err != nil || res.Hits != 2 || res.Blocks != 6 {
		t.Fatalf("LRU of one block: %+v, %v", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CacheSim(ctx, &records{recs}, 0); err != context.Canceled {
		t.Fatalf("cancelled: %v", err)
	}
}
