package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/tracestat"
)

func init() {
	register(&command{
		name:    "cache-sim",
		summary: "Ideal prefix-cache block hit rate of a trace (infinite, or LRU of N blocks or GiB; a whole curve in one pass)",
		usage:   "--trace FILE [--format F] [--capacity-blocks N|A,B,C|LO-HI] [--capacity-gib X,Y|LO-HI --kv-bytes-per-token N|--model-config FILE] [--tokenizer FILE]",
		example: `  replay cache-sim --trace mooncake.jsonl
  replay cache-sim --trace mooncake.jsonl --capacity-blocks 10000
  replay cache-sim --trace mooncake.jsonl --capacity-blocks 1000,10000,100000
  replay cache-sim --trace mooncake.jsonl --capacity-blocks 1000-100000
  replay cache-sim --trace mooncake.jsonl --capacity-gib 8,16,40 --model-config ./Llama-3.1-8B/config.json
  replay cache-sim --trace gateway.log.jsonl --format openai-log --tokenizer ./Qwen3-8B`,
		setup: setupCacheSim,
	})
}

// rangePoints is how many log-spaced capacities a LO-HI range gives.
const rangePoints = 12

// cacheSimFlags are cache-sim's own flags.
type cacheSimFlags struct {
	blocks, gib, modelConfig, tokenizer string
	kvBytes                             int
}

func (f *cacheSimFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.blocks, "capacity-blocks", "0", "cache capacity in blocks, least recently used evicted first: N (0: infinite), a list A,B,C, or a range LO-HI of 12 log-spaced sizes; several print one line each, plus infinite")
	fs.StringVar(&f.gib, "capacity-gib", "", "cache capacity in GiB of KV cache (a list or a range, as --capacity-blocks), converted to whole blocks with --kv-bytes-per-token or --model-config and the trace's block size")
	fs.IntVar(&f.kvBytes, "kv-bytes-per-token", 0, "KV cache bytes one token takes (2 x layers x KV heads x head dim x bytes per element), to convert blocks and GiB")
	fs.StringVar(&f.modelConfig, "model-config", "", "the model's Hugging Face config.json (or its folder), giving --kv-bytes-per-token from its layers, KV heads, head dim and torch_dtype")
	fs.StringVar(&f.tokenizer, "tokenizer", "", "request logs (openai-log): the served model's tokenizer (a Hugging Face repo id ORG/NAME, a tokenizer.json or its folder), to count and hash the prompts")
}

func setupCacheSim(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	var in ingestFlags
	in.add(fs)
	var f cacheSimFlags
	f.add(fs)
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unexpected arguments %q", args)
		}
		opts, err := in.options()
		if err != nil {
			return err
		}
		if f.tokenizer != "" {
			if opts.Tokenizer, err = runner.FindTokenizer(ctx, f.tokenizer, std.stderr); err != nil {
				return err
			}
		}
		sizes, err := f.sizes()
		if err != nil {
			return err
		}
		single := f.gib == "" && !strings.ContainsAny(f.blocks, ",-")
		return cacheSim(ctx, std, in.trace, opts, sizes, single)
	}
}

// sizes turns the flags into the capacities and KV size to ask tracestat for.
func (f *cacheSimFlags) sizes() (tracestat.CacheSizes, error) {
	var s tracestat.CacheSizes
	var err error
	if s.Blocks, err = parseBlocks(f.blocks); err != nil {
		return s, err
	}
	if f.gib != "" {
		if s.GiB, err = parseGiB(f.gib); err != nil {
			return s, err
		}
	}
	switch {
	case f.kvBytes < 0:
		return s, errors.New("--kv-bytes-per-token must be positive")
	case f.kvBytes > 0 && f.modelConfig != "":
		return s, errors.New("--kv-bytes-per-token and --model-config both give the KV size: pass one")
	case f.gib != "" && f.kvBytes == 0 && f.modelConfig == "":
		return s, errors.New("--capacity-gib needs the KV bytes per token: pass --kv-bytes-per-token or --model-config")
	}
	s.KVBytesPerToken = f.kvBytes
	if f.modelConfig != "" {
		s.ModelConfigName, s.ModelConfig, err = readModelConfig(f.modelConfig)
	}
	return s, err
}

// readModelConfig reads a config.json, or the one in a model's folder.
func readModelConfig(path string) (string, []byte, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "config.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return path, nil, fmt.Errorf("--model-config: %w", err)
	}
	return path, b, nil
}

// parseBlocks reads --capacity-blocks: N, A,B,C or LO-HI (rangePoints log-spaced whole
// sizes); 0 (infinite) as a value, not as a range's end.
func parseBlocks(v string) ([]int, error) {
	var out []int
	for item := range strings.SplitSeq(v, ",") {
		lo, hi, isRange := cutRange(strings.TrimSpace(item))
		a, errA := strconv.Atoi(strings.TrimSpace(lo))
		b, errB := a, error(nil)
		if isRange {
			b, errB = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err := errors.Join(errA, errB); err != nil {
			return nil, fmt.Errorf("--capacity-blocks %q: want N, A,B,C or LO-HI in blocks: %w", v, err)
		}
		if a < 0 || (a == 0 && isRange) || a > b {
			return nil, fmt.Errorf("--capacity-blocks %q: sizes must be positive (0: infinite, not in a range) and a range's LO at most its HI", v)
		}
		if !isRange {
			out = append(out, a)
			continue
		}
		for _, x := range logSpaced(float64(a), float64(b)) {
			out = append(out, int(math.Round(x)))
		}
	}
	return out, nil
}

// parseGiB reads --capacity-gib: X, X,Y or LO-HI in GiB, all positive.
func parseGiB(v string) ([]float64, error) {
	var out []float64
	for item := range strings.SplitSeq(v, ",") {
		lo, hi, isRange := cutRange(strings.TrimSpace(item))
		a, errA := strconv.ParseFloat(strings.TrimSpace(lo), 64)
		b, errB := a, error(nil)
		if isRange {
			b, errB = strconv.ParseFloat(strings.TrimSpace(hi), 64)
		}
		if err := errors.Join(errA, errB); err != nil {
			return nil, fmt.Errorf("--capacity-gib %q: want X, X,Y or LO-HI in GiB: %w", v, err)
		}
		if !(a > 0) || !(b >= a) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("--capacity-gib %q: sizes must be positive and a range's LO at most its HI", v)
		}
		if !isRange {
			out = append(out, a)
			continue
		}
		out = append(out, logSpaced(a, b)...)
	}
	return out, nil
}

// cutRange splits LO-HI at its dash: not a leading one (a negative number, refused later) nor
// an exponent's (1e-3).
func cutRange(s string) (lo, hi string, ok bool) {
	for i := 1; i < len(s); i++ {
		if s[i] == '-' && s[i-1] != 'e' && s[i-1] != 'E' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// logSpaced is rangePoints sizes from lo to hi, equal ratios apart (a cache's hit rate moves
// with the log of its size); just lo when lo == hi.
func logSpaced(lo, hi float64) []float64 {
	if lo == hi {
		return []float64{lo}
	}
	out := make([]float64, rangePoints)
	for i := range out {
		out[i] = lo * math.Pow(hi/lo, float64(i)/float64(rangePoints-1))
	}
	out[rangePoints-1] = hi // no rounding error at the end the user named
	return out
}

// cacheSim opens the trace, runs it once through the curve (tracestat) and prints the hit
// rates: single keeps the one-capacity output that scripts parse (`hit rate 64.0%`).
func cacheSim(ctx context.Context, std cli, path string, opts ingest.Options, sizes tracestat.CacheSizes, single bool) error {
	r, err := ingest.Open(path, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	curve, err := tracestat.CacheSimCurve(ctx, r, sizes)
	if err != nil {
		return err
	}
	inf := curve.Points[len(curve.Points)-1]
	if inf.Blocks == 0 {
		return fmt.Errorf("%s: no block hashes in this trace, nothing to simulate", path)
	}
	if n := r.Counts().Rejected; n > 0 {
		fmt.Fprintf(std.stderr, "%d rows rejected and left out\n", n)
	}
	if single {
		return printSingle(std, curve.Points[0])
	}
	return printCurve(std, curve)
}

// printSingle is the one-capacity output, unchanged since external checks parse it.
func printSingle(std cli, p tracestat.CachePoint) error {
	size := "infinite"
	if p.CapacityBlocks > 0 {
		size = fmt.Sprintf("LRU %d blocks", p.CapacityBlocks)
	}
	fmt.Fprintf(std.stderr, "%d of %d blocks hit (%s cache)\n", p.Hits, p.Blocks, size)
	_, err := fmt.Fprintf(std.stdout, "hit rate %.1f%%\n", 100*p.Rate())
	return err
}

// printCurve prints a line per capacity, smallest first, then the infinite cache.
func printCurve(std cli, c tracestat.CacheCurve) error {
	inf := c.Points[len(c.Points)-1]
	fmt.Fprintf(std.stderr, "%d blocks, %d distinct; one pass for every capacity\n", inf.Blocks, c.Distinct)
	if c.Model != "" {
		fmt.Fprintf(std.stderr, "model config: %s\n", c.Model)
	}
	var b strings.Builder
	for _, p := range c.Points {
		switch {
		case p.CapacityBlocks == 0:
			b.WriteString("capacity infinite")
		case p.GiB > 0:
			fmt.Fprintf(&b, "capacity %d blocks (%s GiB)", p.CapacityBlocks, formatGiB(p.GiB))
		default:
			fmt.Fprintf(&b, "capacity %d blocks", p.CapacityBlocks)
		}
		fmt.Fprintf(&b, ": hit rate %.1f%%\n", 100*p.Rate())
	}
	_, err := io.WriteString(std.stdout, b.String())
	return err
}

// formatGiB keeps two decimals, and two significant digits below 0.01 GiB rather than 0.00.
func formatGiB(g float64) string {
	if g < 0.01 {
		return strconv.FormatFloat(g, 'g', 2, 64)
	}
	return strconv.FormatFloat(g, 'f', 2, 64)
}
