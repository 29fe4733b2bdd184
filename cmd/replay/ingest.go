package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/accesslog"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

func init() {
	register(&command{
		name:    "ingest",
		summary: "Normalize an access log or public trace into a trace file (Parquet or Arrow)",
		usage:   "--trace FILE [--format F] [--map field=column,...] --out FILE.parquet\n  replay ingest --trace LOG.jsonl --format openai-log --tokenizer FILE [--block-size 16] [--export mooncake] --out FILE",
		example: `  replay ingest --trace ../shared/traces/mooncake_synthetic.jsonl --out trace.parquet
  replay ingest --trace gateway.jsonl --format jsonl --time-unit ms \
      --map timestamp=ts,prompt_tokens=usage.prompt_tokens,output_tokens=usage.completion_tokens \
      --on-error skip --quarantine bad.jsonl --out trace.parquet
  replay ingest --trace ../shared/traces/azure2023_conv.csv --stats
  replay ingest --trace gateway.log.jsonl --format openai-log --tokenizer ./Qwen3-8B \
      --block-size 16 --export mooncake --out anonymized.jsonl`,
		setup: setupIngest,
	})
}

// ingestFlags are the trace-reading flags shared by the commands that read a trace.
type ingestFlags struct {
	trace, format, mapping, timeUnit, hashCheck, onError string
	blockSize                                            int
}

func (f *ingestFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.trace, "trace", "", "trace or access log to read (required)")
	fs.StringVar(&f.format, "format", "auto", "input format: "+strings.Join(ingest.Formats, ", "))
	fs.StringVar(&f.mapping, "map", "", "field=column pairs overriding the format's columns; columns may be dotted JSON paths (fields: "+strings.Join(ingest.Fields[:], ", ")+"; for openai-log: "+strings.Join(accesslog.Fields, ", ")+")")
	fs.StringVar(&f.timeUnit, "time-unit", "", "unit of numeric timestamps: s, ms, us or ns (default: ms for mooncake, s otherwise)")
	fs.IntVar(&f.blockSize, "block-size", 0, "tokens per prefix hash block (default: 512 for mooncake, 16 for openai-log, none otherwise)")
	fs.StringVar(&f.hashCheck, "hash-check", "error", "a row whose hash count is not ceil(prompt/block-size): error, warn or ignore")
	fs.StringVar(&f.onError, "on-error", "fail", "bad rows: fail (stop at the first) or skip (quarantine and count)")
}

func (f *ingestFlags) options() (ingest.Options, error) {
	if f.trace == "" {
		return ingest.Options{}, errors.New("--trace is required")
	}
	parseMap := ingest.ParseMap
	if f.format == ingest.FormatOpenAILog { // request logs have fields of their own
		parseMap = accesslog.ParseMap
	}
	m, err := parseMap(f.mapping)
	if err != nil {
		return ingest.Options{}, err
	}
	return ingest.Options{Format: f.format, Map: m, TimeUnit: f.timeUnit, BlockSize: f.blockSize, HashCheck: f.hashCheck, OnError: f.onError}, nil
}

func setupIngest(fs *pflag.FlagSet) func(ctx context.Context, args []string) error {
	var in ingestFlags
	in.add(fs)
	quarantine := fs.String("quarantine", "", "write the raw lines of rejected rows here (implies --on-error skip)")
	sortFlag := fs.Bool("sort", false, "sort out-of-order records stably by time instead of rejecting them (buffers the trace only if it is out of order)")
	out := fs.String("out", "", "normalized trace to write: Parquet, or Arrow IPC when the name ends in .arrow, .feather or .ipc")
	arrowOut := fs.String("arrow", "", "also write an Arrow IPC file here")
	stats := fs.Bool("stats", false, "print the trace's shape: span, rate, burstiness, token percentiles, ideal prefix hit rate")
	asJSON := fs.Bool("json", false, "with --stats, print everything as one JSON line")
	var lf logFlags
	lf.add(fs)
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unexpected arguments %q", args)
		}
		if in.trace != "" {
			isLog, err := accesslog.IsRequestLog(in.format, in.trace)
			if err != nil {
				return err
			}
			if isLog {
				if *out == "" && *arrowOut == "" && !*stats {
					return errors.New("nothing to do: give --out FILE.parquet, --export mooncake --out FILE.jsonl, --arrow FILE.arrow or --stats")
				}
				if *quarantine != "" && fs.Changed("on-error") && in.onError != ingest.OnErrorSkip {
					return errors.New("--quarantine needs --on-error skip")
				}
				if *quarantine != "" {
					in.onError = ingest.OnErrorSkip
				}
				if *sortFlag {
					return errors.New("--sort is not available for request logs: sort the log by time first")
				}
				return runRequestLog(ctx, in, lf, *quarantine, *out, *arrowOut, *stats, *asJSON, os.Stdout, os.Stderr)
			}
		}
		if lf.export != "" || lf.tokenizer != "" || lf.hashKeyFile != "" || lf.keepText {
			return errors.New("--tokenizer, --export, --hash-key-file and --keep-text are for request logs (--format openai-log)")
		}
		opts, err := in.options()
		if err != nil {
			return err
		}
		if *out == "" && *arrowOut == "" && !*stats {
			return errors.New("nothing to do: give --out FILE.parquet, --arrow FILE.arrow or --stats")
		}
		if *quarantine != "" {
			// A quarantine only makes sense when bad rows are skipped; asking for one implies it.
			if fs.Changed("on-error") && opts.OnError != ingest.OnErrorSkip {
				return errors.New("--quarantine needs --on-error skip")
			}
			opts.OnError = ingest.OnErrorSkip
		}
		opts.QuarantinePath = *quarantine
		opts.Sort = *sortFlag
		return runIngest(ctx, opts, in.trace, *out, *arrowOut, *stats, *asJSON, os.Stdout, os.Stderr)
	}
}

// recordWriter is what both trace file writers offer.
type recordWriter interface {
	Write(trace.Record) error
	Close() error
}

func createWriter(path string) (recordWriter, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".arrow", ".feather", ".ipc":
		return trace.CreateArrowFile(path)
	}
	return trace.CreateFile(path)
}

func runIngest(ctx context.Context, opts ingest.Options, path, out, arrowOut string, stats, asJSON bool, stdout, stderr io.Writer) (err error) {
	if !stats { // --stats keeps what it counts, so its heap grows with the trace
		defer ingest.SetStreamGC()()
	}
	r, err := ingest.Open(path, opts)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	var outs outputs
	defer outs.finish(&err)
	var writers []recordWriter
	for _, p := range []string{out, arrowOut} {
		if p == "" {
			continue
		}
		w, err := outs.records(p)
		if err != nil {
			return err
		}
		writers = append(writers, w)
	}
	var shape *ingest.ShapeBuilder
	if stats {
		shape = ingest.NewShapeBuilder()
	}
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
		for _, w := range writers {
			if err := w.Write(rec); err != nil {
				return err
			}
		}
		if shape != nil {
			shape.Add(rec)
		}
	}
	if err := outs.close(); err != nil {
		return err
	}
	c := r.Counts()
	for _, e := range c.Errors {
		fmt.Fprintf(stderr, "rejected: %s\n", e)
	}
	if c.Rejected > int64(len(c.Errors)) {
		fmt.Fprintf(stderr, "rejected: ... %d more\n", c.Rejected-int64(len(c.Errors)))
	}
	if c.Rejected > 0 && opts.QuarantinePath != "" {
		fmt.Fprintf(stderr, "%d rejected rows written to %s\n", c.Rejected, opts.QuarantinePath)
	}
	if c.HashMismatches > 0 {
		fmt.Fprintf(stderr, "warning: %d records have a hash count other than ceil(prompt_tokens/block_size)\n", c.HashMismatches)
	}
	if c.Sorted {
		fmt.Fprintln(stderr, "note: the trace was out of order; records were sorted by time")
	}
	return writeIngestCounts(stdout, c.Records, c.Rejected, shape, asJSON)
}

// writeIngestCounts prints the contract's one-line {"records":N,"rejected":M} (with the trace's
// shape inside under --stats --json, or as text after it under --stats).
func writeIngestCounts(stdout io.Writer, records, rejected int64, shape *ingest.ShapeBuilder, asJSON bool) error {
	counts := struct {
		Records  int64         `json:"records"`
		Rejected int64         `json:"rejected"`
		Stats    *ingest.Shape `json:"stats,omitempty"`
	}{Records: records, Rejected: rejected}
	var s ingest.Shape
	if shape != nil {
		s = shape.Shape()
		if asJSON {
			counts.Stats = &s
		}
	}
	line, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}
	if shape != nil && !asJSON {
		return s.WriteText(stdout)
	}
	return nil
}
