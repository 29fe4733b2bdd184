package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/accesslog"
	"github.com/llm-replay/replay/ingest"
)

// logFlags are `replay ingest`'s flags for raw request logs (--format openai-log).
type logFlags struct {
	tokenizer, export, hashKeyFile string
	keepText                       bool
}

func (f *logFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.tokenizer, "tokenizer", "", "request logs (openai-log): the served model's tokenizer.json or its folder; its tokenizer_config.json gives the chat template")
	fs.StringVar(&f.export, "export", "", "request logs: write --out in this shape instead of the normalized trace (mooncake: JSONL with timestamp ms, input_length, output_length, hash_ids renumbered densely)")
	fs.StringVar(&f.hashKeyFile, "hash-key-file", "", "request logs: key for the prefix block hashes (raw bytes or hex); default a random key, shown nowhere, so hashes cannot be looked up in a dictionary")
	fs.BoolVar(&f.keepText, "keep-text", false, "request logs: keep the prompt (template applied) and response text: in the Mooncake lines as prompt/response, beside a Parquet trace in OUT.text.jsonl (default: no text at all)")
}

// runRequestLog reads a request log with the tokenizer and writes the normalized trace and/or
// the Mooncake export.
func runRequestLog(ctx context.Context, in ingestFlags, lf logFlags, quarantine, out, arrowOut string, stats, asJSON bool, stdout, stderr io.Writer) (err error) {
	if lf.tokenizer == "" {
		return errors.New("--format openai-log needs --tokenizer (the served model's tokenizer.json or folder): prompt counts come from rendering and tokenizing each request")
	}
	switch lf.export {
	case "", "mooncake":
	default:
		return fmt.Errorf("unknown --export %q (want mooncake)", lf.export)
	}
	if lf.export != "" && out == "" {
		return errors.New("--export mooncake needs --out FILE.jsonl")
	}
	m, err := accesslog.ParseMap(in.mapping)
	if err != nil {
		return err
	}
	tok, chat, err := accesslog.LoadModel(lf.tokenizer)
	if err != nil {
		return err
	}
	opts := accesslog.Options{Tokenizer: tok, Chat: chat, BlockSize: in.blockSize, Map: m, TimeUnit: in.timeUnit, OnError: in.onError, KeepText: lf.keepText}
	if lf.hashKeyFile != "" {
		if opts.HashKey, err = accesslog.ReadKeyFile(lf.hashKeyFile); err != nil {
			return err
		}
	}
	var outs outputs
	defer outs.finish(&err)
	if quarantine != "" {
		q, err := outs.file(quarantine, true) // kept even when the run fails
		if err != nil {
			return err
		}
		opts.Quarantine = q
	}
	r, err := accesslog.Open(in.trace, opts)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()

	var moon *accesslog.MooncakeWriter
	var writers []recordWriter
	var text *json.Encoder
	if lf.export == "mooncake" {
		f, err := outs.file(out, false)
		if err != nil {
			return err
		}
		moon = accesslog.NewMooncakeWriter(f)
	} else if out != "" {
		w, err := outs.records(out)
		if err != nil {
			return err
		}
		writers = append(writers, w)
		if lf.keepText {
			f, err := outs.file(strings.TrimSuffix(out, ".parquet")+".text.jsonl", false)
			if err != nil {
				return err
			}
			text = json.NewEncoder(f)
		}
	}
	if arrowOut != "" {
		w, err := outs.records(arrowOut)
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
		if n%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		req, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if moon != nil {
			if err := moon.Write(req); err != nil {
				return err
			}
		}
		for _, w := range writers {
			if err := w.Write(req.Record); err != nil {
				return err
			}
		}
		if text != nil {
			if err := text.Encode(map[string]any{"line": req.Line, "prompt": req.Prompt, "response": req.Response}); err != nil {
				return err
			}
		}
		if shape != nil {
			shape.Add(req.Record)
		}
	}
	if moon != nil {
		if err := moon.Flush(); err != nil {
			return err
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
	if c.Rejected > 0 && quarantine != "" {
		fmt.Fprintf(stderr, "%d rejected lines written to %s\n", c.Rejected, quarantine)
	}
	if c.UsageMismatches > 0 {
		fmt.Fprintf(stderr, "warning: %d of %d requests with usage.prompt_tokens disagree with our count: is --tokenizer the logged model's?\n", c.UsageMismatches, c.UsageChecked)
	}
	return writeIngestCounts(stdout, c.Records, c.Rejected, shape, asJSON)
}
