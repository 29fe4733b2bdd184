package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	_ "github.com/llm-replay/replay/gatewaylog" // registers the gateway, cloud and engine logs
	"github.com/llm-replay/replay/ingest"
	_ "github.com/llm-replay/replay/otlp" // registers --format otlp
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/trace"
	"github.com/llm-replay/replay/tracestat"
)

func init() {
	register(&command{
		name:    "ingest",
		summary: "Normalize a trace or request log into a trace file (Parquet or Arrow)",
		usage:   "--trace FILE|DIR|GLOB... [--format F] [--map field=column,...] --out FILE.parquet\n  replay ingest --trace LOG.jsonl --format openai-log --tokenizer FILE [--block-size 16] [--export mooncake] --out FILE",
		example: `  replay ingest --trace mooncake.jsonl --out trace.parquet
  replay ingest --trace gateway.jsonl --format jsonl --time-unit ms \
      --map timestamp=ts,prompt_tokens=usage.prompt_tokens,output_tokens=usage.completion_tokens \
      --on-error skip --quarantine bad.jsonl --out trace.parquet
  replay ingest --trace azure_conv.csv --stats
  replay ingest --trace 'logs/2026-12-05/*.json.gz' --format litellm --out day.parquet
  replay ingest --trace gateway.log.jsonl --format openai-log --tokenizer ./Qwen3-8B \
      --block-size 16 --export mooncake --out anonymized.jsonl`,
		setup: setupIngest,
	})
}

// ingestFlags are the trace-reading flags shared by the commands that read a trace.
type ingestFlags struct {
	traces                                               []string // --trace's values (traces.go)
	trace, format, mapping, timeUnit, hashCheck, onError string
	blockSize, logYear                                   int
	// files are the files --trace's values name (traces.go), when they are not one file;
	// notLogs those a folder held that are no log.
	files, notLogs []string
	// imageSize and imageTokens size and count a request log's images (--image-size,
	// --image-tokens).
	imageSize   string
	imageTokens int
	// loggedModel is --logged-model: the model that counted the log's images.
	loggedModel string
	// audioRate counts a request log's audio clips (--audio-tokens-per-second).
	audioRate float64
}

func (f *ingestFlags) add(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.traces, "trace", nil, traceUsage("trace or request log to read (required)"))
	fs.StringVar(&f.format, "format", "auto", "input format: "+strings.Join(ingest.Formats, ", ")+" (help: what each reads, with an example of its input)")
	fs.StringVar(&f.mapping, "map", "", "field=column pairs overriding the format's columns; columns may be dotted JSON paths, a key holding dots in brackets ('prompt_tokens=[\"gen_ai.usage.input_tokens\"]'), going on into JSON held in a string (metadata.usage.cached) (fields: "+strings.Join(ingest.Fields[:], ", ")+"; for openai-log: "+strings.Join(requestlog.Fields, ", ")+")")
	fs.StringVar(&f.timeUnit, "time-unit", "", "unit of numeric timestamps: s, ms, us or ns (default: ms for mooncake, s otherwise)")
	intWords(fs, &f.blockSize, "block-size", 0, "tokens per prefix hash block (auto: 512 for mooncake, 16 for openai-log, no blocks otherwise; 0 means auto too)", auto(0))
	fs.StringVar(&f.hashCheck, "hash-check", "error", "a row whose hash count is not ceil(prompt/block-size): error, warn or ignore")
	fs.StringVar(&f.onError, "on-error", "fail", "bad rows: fail (stop at the first) or skip (quarantine and count)")
	fs.IntVar(&f.logYear, "log-year", 0, "year of log timestamps written without one (a server log's month-day times); default the file's modification year")
	fs.StringVar(&f.imageSize, "image-size", "", "WxH of images a request log gives by URL only (e.g. 1024x768); without it such an image is sized from its line's logged prompt tokens beyond the text, by the logged model's rule (the squarest size; an error where the line logs no prompt count or the rule counts every size alike)")
	fs.IntVar(&f.imageTokens, "image-tokens", 0, "prompt tokens of every image, for a model whose folder has no image rule (config.json model_type: qwen2_vl, qwen2_5_vl, qwen3_vl, gemma3, llava, llava_next, llava over pixtral, mistral3, llama4, internvl, internvl_chat, phi3_v, phi4_multimodal and phi4mm have one)")
	fs.StringVar(&f.loggedModel, "logged-model", "", "the model whose rule counted the log's images, where the logged model name says nothing (a deployment alias): a hosted family (gpt-4o, gpt-4.1-mini, o3, claude-sonnet-4, gemini-2.5-pro) or a model folder or Hugging Face id with config.json and preprocessor_config.json; default: each line's model name, else the served model's own rule")
	fs.Float64Var(&f.audioRate, "audio-tokens-per-second", 0, "prompt tokens of an audio clip per second of it, rounded up per clip (ceil(R × seconds)), for a model whose folder has no audio rule (config.json model_type qwen2_audio, qwen2_5_omni and voxtral have one)")
}

func (f *ingestFlags) options() (ingest.Options, error) {
	if err := f.resolve(nil); err != nil {
		return ingest.Options{}, err
	}
	if f.trace == "" {
		return ingest.Options{}, errors.New("--trace is required")
	}
	parseMap := ingest.ParseMap
	if f.format == ingest.FormatOpenAILog { // request logs have fields of their own
		parseMap = requestlog.ParseMap
	}
	m, err := parseMap(f.mapping)
	if err != nil {
		return ingest.Options{}, err
	}
	return ingest.Options{Format: f.format, Map: m, TimeUnit: f.timeUnit, BlockSize: f.blockSize, HashCheck: f.hashCheck, OnError: f.onError, LogYear: f.logYear, Files: f.files,
		ImageSize: f.imageSize, ImageTokens: f.imageTokens, LoggedModel: f.loggedModel, AudioTokensPerSecond: f.audioRate}, nil
}

// ingestOutputs are `replay ingest`'s flags for what to write and how to treat rejections.
type ingestOutputs struct {
	quarantine, out, arrow string
	sort, stats, asJSON    bool
	// onErrorSet: --on-error was given (a --quarantine then needs it to be skip).
	onErrorSet bool
}

func (o *ingestOutputs) add(fs *pflag.FlagSet) {
	fs.StringVar(&o.quarantine, "quarantine", "", "write the raw lines of rejected rows here (implies --on-error skip)")
	fs.BoolVar(&o.sort, "sort", false, "sort out-of-order records stably by time instead of rejecting them (buffers the trace only if it is out of order)")
	fs.StringVar(&o.out, "out", "", "normalized trace to write: Parquet, or Arrow IPC when the name ends in .arrow, .feather or .ipc")
	fs.StringVar(&o.arrow, "arrow", "", "also write an Arrow IPC file here")
	fs.BoolVar(&o.stats, "stats", false, "print the trace's shape: span, rate, burstiness, token percentiles, ideal prefix hit rate")
	fs.BoolVar(&o.asJSON, "json", false, "with --stats, print everything as one JSON line")
}

// shape is what --stats counts the records with (nil without it) and the job's hook for it.
func (o *ingestOutputs) shape() (*tracestat.ShapeBuilder, func(trace.Record)) {
	if !o.stats {
		return nil, nil
	}
	b := tracestat.NewShapeBuilder()
	return b, b.Add
}

func setupIngest(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	var in ingestFlags
	in.add(fs)
	var o ingestOutputs
	o.add(fs)
	var lf logFlags
	lf.add(fs)
	return func(ctx context.Context, args []string) error {
		if err := in.resolve(args); err != nil {
			return err
		}
		in.sayNotLogs(std.stderr)
		o.onErrorSet = fs.Changed("on-error")
		if in.trace != "" && isRequestLog(in) {
			if len(in.files) > 0 {
				return fmt.Errorf("--trace %s: %d files of a request log (openai-log): converting is one file at a time; give one file, or join them first (a folder of gateway logs is read as one)", in.trace, len(in.files))
			}
			return convertLog(ctx, std, in, lf, o)
		}
		return normalizeTrace(ctx, std, in, lf, o)
	}
}

// isRequestLog says whether --trace is a request log (--format openai-log, or detected), which
// requestlog converts. A file whose format cannot be told is left to ingest, which says why.
func isRequestLog(in ingestFlags) bool {
	path := in.trace
	if len(in.files) > 0 {
		path = in.files[0]
	}
	format, err := ingest.FileFormat(path, in.format)
	return err == nil && format == ingest.FormatOpenAILog
}

// normalizeTrace is `replay ingest` of a trace that is not a request log.
func normalizeTrace(ctx context.Context, std cli, in ingestFlags, lf logFlags, o ingestOutputs) error {
	if lf.export != "" || lf.tokenizer != "" || lf.hashKeyFile != "" || lf.keepText || in.imageSize != "" || in.imageTokens != 0 || in.loggedModel != "" || in.audioRate != 0 {
		return errors.New("--tokenizer, --export, --hash-key-file, --keep-text, --image-size, --image-tokens, --logged-model and --audio-tokens-per-second are for request logs (--format openai-log)")
	}
	opts, err := in.options()
	if err != nil {
		return err
	}
	if o.out == "" && o.arrow == "" && !o.stats {
		return errors.New("nothing to do: give --out FILE.parquet, --arrow FILE.arrow or --stats")
	}
	if o.quarantine != "" {
		// A quarantine only makes sense when bad rows are skipped; asking for one implies it.
		if o.onErrorSet && opts.OnError != ingest.OnErrorSkip {
			return errors.New("--quarantine needs --on-error skip")
		}
		opts.OnError = ingest.OnErrorSkip
	}
	opts.QuarantinePath = o.quarantine
	opts.Sort = o.sort
	shape, observe := o.shape()
	models := modelTally{}
	c, err := ingest.Normalize(ctx, ingest.NormalizeOptions{
		Trace: in.trace, Read: opts, Out: o.out, Arrow: o.arrow, Observe: models.observing(observe), Stderr: std.stderr,
	})
	if err != nil {
		return err
	}
	models.write(std.stderr)
	return writeIngestCounts(std.stdout, ingestCounts{Records: c.Records, Rejected: c.Rejected, Skipped: c.Skipped, CachedUnplaced: c.CachedUnplaced, OutputUnknown: c.OutputUnknown, Images: c.Images}, shape, o.asJSON)
}

// ingestCounts is the contract's one-line count, and under --stats what a request log's
// reader did not carry.
type ingestCounts struct {
	Records  int64 `json:"records"`
	Rejected int64 `json:"rejected"`
	// Skipped counts a gateway log's records that are no model request (MCP calls, health
	// checks), left out.
	Skipped int64 `json:"skipped,omitempty"`
	// CachedUnplaced counts records whose logged cached tokens nothing earlier in the log
	// could have shared (a cache warmed before it began).
	CachedUnplaced int64 `json:"cached_unplaced,omitempty"`
	// OutputUnknown counts records whose log holds no output count (a vLLM server log
	// without --enable-log-outputs): their output_tokens are 0 for want of one.
	OutputUnknown int64 `json:"output_unknown,omitempty"`
	// Images and Audio count the images and audio clips a request log's or a gateway log's
	// records carry (their media column).
	Images int64            `json:"images,omitempty"`
	Audio  int64            `json:"audio,omitempty"`
	Stats  *tracestat.Shape `json:"stats,omitempty"`
	// Carried counts the request body fields, by name, a request log's reader carries as
	// logged without knowing them (trace.Options.Fields: sent back as they were), Dropped
	// those it does not replay (--stats only); the Text fields list them for the text form.
	Carried     map[string]int64 `json:"carried_request_fields,omitempty"`
	Dropped     map[string]int64 `json:"dropped_request_fields,omitempty"`
	CarriedText string           `json:"-"`
	DroppedText string           `json:"-"`
}

// writeIngestCounts prints the contract's one-line {"records":N,"rejected":M} (with the trace's
// shape and the carried and dropped request fields inside under --stats --json, or as text after it under
// --stats).
func writeIngestCounts(stdout io.Writer, counts ingestCounts, shape *tracestat.ShapeBuilder, asJSON bool) error {
	if shape == nil {
		counts.Carried, counts.Dropped = nil, nil
	}
	var s tracestat.Shape
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
	if shape == nil || asJSON {
		return nil
	}
	if err := s.WriteText(stdout); err != nil {
		return err
	}
	if counts.CarriedText != "" {
		if _, err = fmt.Fprintf(stdout, "request fields carried as logged: %s\n", counts.CarriedText); err != nil {
			return err
		}
	}
	if counts.DroppedText != "" {
		_, err = fmt.Fprintf(stdout, "request fields not replayed: %s\n", counts.DroppedText)
	}
	return err
}
