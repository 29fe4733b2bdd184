package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/tracestat"
)

func init() {
	register(&command{
		name:    "cache-sim",
		summary: "Ideal prefix-cache block hit rate of a trace (infinite, or LRU of N blocks)",
		usage:   "--trace FILE [--format F] [--capacity-blocks N] [--tokenizer FILE]",
		example: `  replay cache-sim --trace mooncake.jsonl
  replay cache-sim --trace mooncake.jsonl --capacity-blocks 10000
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
		opts.Tokenizer = *tokPath
		return cacheSim(ctx, in.trace, opts, *capacity)
	}
}

// cacheSim opens the trace, runs it through the cache (tracestat) and prints the hit rate.
func cacheSim(ctx context.Context, path string, opts ingest.Options, capacity int) error {
	r, err := ingest.Open(path, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := tracestat.CacheSim(ctx, r, capacity)
	if err != nil {
		return err
	}
	if res.Blocks == 0 {
		return fmt.Errorf("%s: no block hashes in this trace, nothing to simulate", path)
	}
	if n := r.Counts().Rejected; n > 0 {
		fmt.Fprintf(os.Stderr, "%d rows rejected and left out\n", n)
	}
	size := "infinite"
	if capacity > 0 {
		size = fmt.Sprintf("LRU %d blocks", capacity)
	}
	fmt.Fprintf(os.Stderr, "%d of %d blocks hit (%s cache)\n", res.Hits, res.Blocks, size)
	_, err = fmt.Fprintf(os.Stdout, "hit rate %.1f%%\n", 100*res.Rate())
	return err
}
