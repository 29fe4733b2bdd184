package tracestat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/trace"
)

// CacheSim runs the block hashes of every record r yields, in order, through an ideal prefix
// cache of capacity blocks (0: infinite; else least recently used evicted first) and returns
// its hit counts. Rows r rejects are left out; r.Counts says how many. CacheSimCurve gives
// the same counts for many capacities from one pass.
func CacheSim(ctx context.Context, r ingest.Reader, capacity int) (prefixcache.Result, error) {
	c := prefixcache.New(capacity)
	err := eachRecord(ctx, r, func(rec *trace.Record) { c.Add(rec.BlockHashes) })
	if err != nil {
		return prefixcache.Result{}, err
	}
	return c.Result(), nil
}

// eachRecord calls f with every record r yields, checking ctx every 4096 records.
func eachRecord(ctx context.Context, r ingest.Reader, f func(*trace.Record)) error {
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		f(&rec)
	}
}

// CacheSizes are the capacities `replay cache-sim` asks for.
type CacheSizes struct {
	Blocks []int     // in blocks; 0 is infinite
	GiB    []float64 // in GiB of KV cache, as many whole blocks as fit
	// KVBytesPerToken converts between blocks and GiB with the trace's block size; when 0 it
	// comes from ModelConfig, and without either GiB is unknown (and GiB sizes an error).
	KVBytesPerToken int
	// ModelConfig is the bytes of a Hugging Face config.json (prefixcache.ParseModelConfig);
	// ModelConfigName names it in errors.
	ModelConfig     []byte
	ModelConfigName string
}

// CachePoint is one capacity's hit counts.
type CachePoint struct {
	prefixcache.Point
	GiB float64 // the capacity's KV cache; 0 when infinite or unknown
}

// CacheCurve is `replay cache-sim`'s answer: every capacity asked for, smallest first, then
// the infinite cache.
type CacheCurve struct {
	Points   []CachePoint
	Distinct int                // distinct blocks in the trace
	KV       prefixcache.KVSize // BytesPerToken 0 when unknown
	Model    string             // the model config's arithmetic, "" without one
}

// CacheSimCurve runs every record's block hashes once through a prefixcache.Curve and reads
// each capacity of sizes off it: the counts CacheSim gives for each, from a single pass.
// A size in GiB needs the KV bytes per token and one block size across the trace's records.
func CacheSimCurve(ctx context.Context, r ingest.Reader, sizes CacheSizes) (CacheCurve, error) {
	var out CacheCurve
	if err := out.kvBytes(sizes); err != nil {
		return CacheCurve{}, err
	}
	c := prefixcache.NewCurve()
	bs := blockSizes{}
	err := eachRecord(ctx, r, func(rec *trace.Record) {
		c.Add(rec.BlockHashes)
		bs.see(rec)
	})
	if err == nil {
		err = c.Err()
	}
	if err != nil {
		return CacheCurve{}, err
	}
	out.Distinct = c.Distinct()
	caps, err := out.capacities(sizes, bs)
	if err != nil {
		return CacheCurve{}, err
	}
	for _, p := range c.Points(caps) {
		cp := CachePoint{Point: p}
		if p.CapacityBlocks > 0 && out.KV.BytesPerToken > 0 {
			cp.GiB = out.KV.GiB(p.CapacityBlocks)
		}
		out.Points = append(out.Points, cp)
	}
	return out, nil
}

// kvBytes settles the KV bytes per token before the pass, so a bad config fails at once.
func (out *CacheCurve) kvBytes(sizes CacheSizes) error {
	switch {
	case sizes.KVBytesPerToken < 0:
		return fmt.Errorf("tracestat: KV bytes per token %d: must be positive", sizes.KVBytesPerToken)
	case sizes.KVBytesPerToken > 0:
		out.KV.BytesPerToken = sizes.KVBytesPerToken
	case sizes.ModelConfig != nil:
		m, err := prefixcache.ParseModelConfig(sizes.ModelConfigName, sizes.ModelConfig)
		if err != nil {
			return err
		}
		out.KV.BytesPerToken, out.Model = m.BytesPerToken, m.String()
	case len(sizes.GiB) > 0:
		return errors.New("tracestat: cache sizes in GiB need the model's KV bytes per token (or its config.json)")
	}
	return nil
}

// capacities are the sizes in blocks, smallest first without repeats, then 0 (infinite); a
// known block size sets KV.BlockTokens.
func (out *CacheCurve) capacities(sizes CacheSizes, bs blockSizes) ([]int, error) {
	if out.KV.BytesPerToken > 0 {
		tokens, err := bs.only()
		if err != nil && len(sizes.GiB) > 0 {
			return nil, err
		}
		out.KV.BlockTokens = tokens // 0 on error: sizes in blocks then show no GiB
	}
	caps := slices.Clone(sizes.Blocks)
	for _, g := range sizes.GiB {
		n, err := out.KV.Blocks(g)
		if err != nil {
			return nil, fmt.Errorf("tracestat: %w", err)
		}
		caps = append(caps, n)
	}
	caps = slices.DeleteFunc(caps, func(c int) bool { return c <= 0 })
	slices.Sort(caps)
	return append(slices.Compact(caps), 0), nil
}

// blockSizes collects the block sizes of the records with hashes.
type blockSizes struct {
	first, other int
	seen, mixed  bool
}

func (b *blockSizes) see(rec *trace.Record) {
	switch {
	case len(rec.BlockHashes) == 0:
	case !b.seen:
		b.first, b.seen = rec.BlockSize, true
	case rec.BlockSize != b.first:
		b.other, b.mixed = rec.BlockSize, true
	}
}

// only is the trace's one block size, an error when records disagree or give none.
func (b blockSizes) only() (int, error) {
	if b.mixed {
		return 0, fmt.Errorf("tracestat: records hash blocks of %d and of %d tokens: no one size in GiB fits both", b.first, b.other)
	}
	if b.first <= 0 {
		return 0, errors.New("tracestat: the records give no block size (tokens per hashed block) to size the cache in GiB by: pass it (--block-size)")
	}
	return b.first, nil
}
