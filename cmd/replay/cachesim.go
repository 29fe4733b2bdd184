package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/accesslog"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/prefixcache"
)

func init() {
	register(&command{
		name:    "cache-sim",
		summary: "Ideal prefix-cache block hit rate of a trace (infinite, or LRU of N blocks)",
		usage:   "--trace FILE [--format F] [--capacity-blocks N] [--tokenizer FILE]",
		example: `  replay cache-sim --trace ../shared/traces/mooncake_synthetic.jsonl
  replay cache-sim --trace ../shared/traces/mooncake_synthetic.jsonl --capacity-blocks 10000
  replay cache-sim --trace gateway.log.jsonl --format openai-log --tokenizer ./Qwen3-8B`,
		setup: setupCacheSim,
	})
}

func setupCacheSim(fs *pflag.FlagSet) func(ctx context.Context, args []string) error {
	var in ingestFlags
	in.add(fs)
	capacity := fs.Int("capacity-blocks", 0, "cache capacity in blocks, least recently used evicted first (0: infinite)")
	tokPath := fs.String("tokenizer", "", "request logs (openai-log): the served model's tokenizer.json or folder, to count and hash the prompts")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unexpected arguments %q", args)
		}
		opts, err := in.options()
		if err != nil {
			return err
		}
		if *capacity < 0 {
			return errors.New("--capacity-blocks must be >= 0")
		}
		return runCacheSim(ctx, opts, in.trace, *tokPath, *capacity, os.Stdout, os.Stderr)
	}
}

func runCacheSim(ctx context.Context, opts ingest.Options, path, tokPath string, capacity int, stdout, stderr io.Writer) error {
	r, err := accesslog.OpenRecords(path, tokPath, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	c := prefixcache.New(capacity)
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		c.Add(rec.BlockHashes)
	}
	res := c.Result()
	if res.Blocks == 0 {
		return fmt.Errorf("%s: no block hashes in this trace, nothing to simulate", path)
	}
	if n := r.Rejected(); n > 0 {
		fmt.Fprintf(stderr, "%d rows rejected and left out\n", n)
	}
	size := "infinite"
	if capacity > 0 {
		size = fmt.Sprintf("LRU %d blocks", capacity)
	}
	fmt.Fprintf(stderr, "%d of %d blocks hit (%s cache)\n", res.Hits, res.Blocks, size)
	_, err = fmt.Fprintf(stdout, "hit rate %.1f%%\n", 100*res.Rate())
	return err
}
