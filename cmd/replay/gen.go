package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/gen"
	"github.com/llm-replay/replay/internal/outfiles"
)

func init() {
	register(&command{
		name:    "gen",
		summary: "Generate a seeded, production-shaped trace (Mooncake JSONL with sessions)",
		usage:   "--out FILE.jsonl [--shape chat|code|agent|mixed] [--duration D] [--rate R] [--seed N] [--block-size N]",
		example: `  replay gen --out mixed.jsonl                                   # 2 minutes, 3 req/s, seed 1
  replay gen --shape agent --duration 1h --rate 5 --seed 7 --out agent.jsonl
  replay gen --shape chat --out - | head -3                      # to stdout
  replay run --trace mixed.jsonl --speed 4 --out out/`,
		setup: setupGen,
	})
}

func setupGen(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	d := gen.Default()
	out := fs.String("out", "", "JSONL file to write, one request a line; - for stdout (required)")
	shape := fs.String("shape", d.Shape, "traffic shape: "+strings.Join(gen.Shapes, ", ")+" (see gen/doc.go for what each models)")
	duration := fs.Duration("duration", d.Duration, "span of arrivals; later turns of sessions are left out, as in a slice of a real trace")
	rate := fs.Float64("rate", d.Rate, "mean requests per second over the duration (arrivals are bursty)")
	seed := fs.Uint64("seed", d.Seed, "seed; the same flags give a byte-identical file")
	blockSize := fs.Int("block-size", d.BlockSize, "tokens per hashed prompt block (512: Mooncake's, what vLLM/SGLang/AIPerf mooncake modes assume)")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unexpected arguments %q", args)
		}
		if *out == "" {
			return errors.New("--out is required (- for stdout)")
		}
		// In gen.Config zero means "default"; on the command line it is a mistake.
		switch {
		case *duration <= 0:
			return fmt.Errorf("--duration %v: must be positive", *duration)
		case *rate <= 0:
			return fmt.Errorf("--rate %v: must be positive", *rate)
		case *blockSize <= 0:
			return fmt.Errorf("--block-size %d: must be positive", *blockSize)
		}
		cfg := gen.Config{Shape: *shape, Duration: *duration, Rate: *rate, Seed: *seed, BlockSize: *blockSize}
		return runGen(cfg, *out, std.stdout, std.stderr)
	}
}

// runGen writes the trace to path (stdout for -) and its summary to stderr; a failed write
// leaves no partial file behind.
func runGen(cfg gen.Config, path string, stdout, stderr io.Writer) (err error) {
	start := time.Now()
	recs, err := gen.Records(cfg)
	if err != nil {
		return err
	}
	w := stdout
	if path != "-" {
		var o outfiles.Set
		defer o.Finish(&err)
		f, err := o.File(path, false)
		if err != nil {
			return err
		}
		w = f
	}
	if err := gen.WriteRecords(w, recs); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "replay gen: %v -> %s in %v\n", gen.Summarize(recs), path, time.Since(start).Round(time.Millisecond))
	return nil
}
