package tracestat

import (
	"context"
	"errors"
	"io"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/prefixcache"
)

// CacheSim runs the block hashes of every record r yields, in order, through an ideal prefix
// cache of capacity blocks (0: infinite; else least recently used evicted first) and returns
// its hit counts (`replay cache-sim`). Rows r rejects are left out; r.Counts says how many.
func CacheSim(ctx context.Context, r ingest.Reader, capacity int) (prefixcache.Result, error) {
	c := prefixcache.New(capacity)
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return prefixcache.Result{}, ctx.Err()
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return c.Result(), nil
		}
		if err != nil {
			return prefixcache.Result{}, err
		}
		c.Add(rec.BlockHashes)
	}
}
