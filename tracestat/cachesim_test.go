package tracestat

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/prefixcache"
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

// chainRecords are seeded records with shared prefixes and the given block size.
func chainRecords(n, blockSize int) []trace.Record {
	var recs []trace.Record
	next := uint64(1)
	for i := range n {
		var h []uint64
		if i > 0 && i%4 != 0 {
			p := recs[i-1-i%3%len(recs)].BlockHashes
			h = append(h, p[:1+i%len(p)]...)
		}
		for k := 0; k <= i%5; k++ {
			h = append(h, next)
			next++
		}
		recs = append(recs, trace.Record{BlockHashes: h, BlockSize: blockSize})
	}
	return recs
}

// TestCacheSimCurve: one pass gives CacheSim's counts at every capacity asked for, smallest
// first without repeats, then infinite; GiB sizes become the whole blocks that fit.
func TestCacheSimCurve(t *testing.T) {
	recs := chainRecords(400, 16)
	sizes := CacheSizes{Blocks: []int{300, 10, 0, 10}, GiB: []float64{3 * 100.0 / 8192}, KVBytesPerToken: 8192}
	// 16-token blocks of 8 KiB per token are 128 KiB: 3/8192*100 GiB is 3*100*128 KiB = 300 blocks.
	got, err := CacheSimCurve(context.Background(), &records{recs}, sizes)
	if err != nil {
		t.Fatal(err)
	}
	var caps []int
	for _, p := range got.Points {
		caps = append(caps, p.CapacityBlocks)
		want, _ := CacheSim(context.Background(), &records{recs}, p.CapacityBlocks)
		if p.Result != want {
			t.Errorf("capacity %d: curve %+v, CacheSim %+v", p.CapacityBlocks, p.Result, want)
		}
	}
	if !slices.Equal(caps, []int{10, 300, 0}) || got.Points[1].GiB != 300*16*8192.0/(1<<30) || got.Points[2].GiB != 0 {
		t.Errorf("points %+v", got.Points)
	}
	if got.KV != (prefixcache.KVSize{BytesPerToken: 8192, BlockTokens: 16}) || got.Distinct == 0 || got.Model != "" {
		t.Errorf("curve %+v", got)
	}
}

// TestCacheSimCurveModel: a config.json gives the KV bytes per token and says how.
func TestCacheSimCurveModel(t *testing.T) {
	cfg := []byte(`{"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "torch_dtype": "bfloat16"}`)
	got, err := CacheSimCurve(context.Background(), &records{chainRecords(50, 512)}, CacheSizes{GiB: []float64{1}, ModelConfig: cfg, ModelConfigName: "config.json"})
	if err != nil {
		t.Fatal(err)
	}
	// 128 KiB per token, 64 MiB per 512-token block: 16 blocks in a GiB.
	if got.KV.BytesPerToken != 131072 || got.Points[0].CapacityBlocks != 16 || got.Points[0].GiB != 1 || !strings.Contains(got.Model, "131072 bytes per token") {
		t.Errorf("%+v", got)
	}
}

func TestCacheSimCurveErrors(t *testing.T) {
	ctx := context.Background()
	recs := chainRecords(20, 16)
	mixed := append(chainRecords(3, 16), trace.Record{BlockHashes: []uint64{99}, BlockSize: 512})
	for _, c := range []struct {
		name  string
		recs  []trace.Record
		sizes CacheSizes
		want  string
	}{
		{"GiB without KV", recs, CacheSizes{GiB: []float64{1}}, "need the model's KV bytes per token"},
		{"negative KV", recs, CacheSizes{KVBytesPerToken: -1}, "must be positive"},
		{"bad config", recs, CacheSizes{GiB: []float64{1}, ModelConfig: []byte(`{}`), ModelConfigName: "m/config.json"}, "m/config.json: num_hidden_layers: missing"},
		{"no block fits", recs, CacheSizes{GiB: []float64{1e-9}, KVBytesPerToken: 1000}, "holds no whole block"},
		{"mixed block sizes", mixed, CacheSizes{GiB: []float64{1}, KVBytesPerToken: 1000}, "blocks of 16 and of 512 tokens"},
		{"no block size", []trace.Record{{BlockHashes: []uint64{1}}}, CacheSizes{GiB: []float64{1}, KVBytesPerToken: 1000}, "no block size"},
	} {
		_, err := CacheSimCurve(ctx, &records{c.recs}, c.sizes)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Mixed block sizes only matter for GiB: sizes in blocks still work, without GiB.
	got, err := CacheSimCurve(ctx, &records{mixed}, CacheSizes{Blocks: []int{5}, KVBytesPerToken: 1000})
	if err != nil || got.Points[0].GiB != 0 {
		t.Errorf("mixed, in blocks: %+v, %v", got, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := CacheSimCurve(cancelled, &records{recs}, CacheSizes{}); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}
