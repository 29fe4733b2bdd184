package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/runner"
)

// logFlags are `replay ingest`'s flags for request logs (--format openai-log).
type logFlags struct {
	tokenizer, export, hashKeyFile string
	keepText                       bool
}

func (f *logFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.tokenizer, "tokenizer", "", "request logs (openai-log): the served model's tokenizer (a Hugging Face repo id ORG/NAME, a tokenizer.json or its folder); its tokenizer_config.json gives the chat template")
	fs.StringVar(&f.export, "export", "", "request logs: write --out in this shape instead of the normalized trace (mooncake: JSONL with timestamp ms, input_length, output_length, hash_ids renumbered densely, and each request's options: streaming, sampling, stop, tools, response_format, status, cancellation; the normalized trace has them in its options column)")
	fs.StringVar(&f.hashKeyFile, "hash-key-file", "", "request logs: key for the prefix block hashes (raw bytes or hex); default a random key, shown nowhere, so hashes cannot be looked up in a dictionary")
	fs.BoolVar(&f.keepText, "keep-text", false, "request logs: keep the text: the prompt (template applied) and response, in the Mooncake lines as prompt/response or beside a Parquet trace in OUT.text.jsonl; in the options, the logged body verbatim (for run --body verbatim) and the tools' and JSON schemas' descriptions, titles and enum values as written. Default: no text at all; those are replaced by synthetic text of the same token length. Tool and property names, types, patterns, tool_choice and stop strings are kept either way: they are configuration, not content")
}

// convertLog is `replay ingest` of a request log: the flags checked, requestlog converts.
func convertLog(ctx context.Context, std cli, in ingestFlags, lf logFlags, o ingestOutputs) error {
	if o.out == "" && o.arrow == "" && !o.stats {
		return errors.New("nothing to do: give --out FILE.parquet, --export mooncake --out FILE.jsonl, --arrow FILE.arrow or --stats")
	}
	if o.quarantine != "" && o.onErrorSet && in.onError != ingest.OnErrorSkip {
		return errors.New("--quarantine needs --on-error skip")
	}
	if o.quarantine != "" {
		in.onError = ingest.OnErrorSkip
	}
	if o.sort {
		return errors.New("--sort is not available for request logs: sort the log by time first")
	}
	if lf.tokenizer == "" {
		return errors.New("--format openai-log needs --tokenizer (the served model's tokenizer.json or folder): prompt counts come from rendering and tokenizing each request")
	}
	switch lf.export {
	case "", "mooncake":
	default:
		return fmt.Errorf("unknown --export %q (want mooncake)", lf.export)
	}
	if lf.export != "" && o.out == "" {
		return errors.New("--export mooncake needs --out FILE.jsonl")
	}
	m, err := requestlog.ParseMap(in.mapping)
	if err != nil {
		return err
	}
	if lf.tokenizer, err = runner.FindTokenizer(ctx, lf.tokenizer, std.stderr); err != nil {
		return err
	}
	if in.loggedModel, err = runner.FindLoggedModel(ctx, in.loggedModel, std.stderr); err != nil {
		return err
	}
	shape, observe := o.shape()
	models := modelTally{}
	c, err := requestlog.Convert(ctx, requestlog.ConvertOptions{
		Log: in.trace, Tokenizer: lf.tokenizer, HashKeyFile: lf.hashKeyFile,
		BlockSize: in.blockSize, Map: m, TimeUnit: in.timeUnit, OnError: in.onError, KeepText: lf.keepText,
		ImageSize: in.imageSize, ImageTokens: in.imageTokens, LoggedModel: in.loggedModel, AudioTokensPerSecond: in.audioRate,
		Out: o.out, Arrow: o.arrow, Mooncake: lf.export == "mooncake", Quarantine: o.quarantine,
		Observe: models.observing(observe), Stderr: std.stderr,
	})
	if err != nil {
		return err
	}
	models.write(std.stderr)
	return writeIngestCounts(std.stdout, ingestCounts{Records: c.Records, Rejected: c.Rejected, Images: c.Images, Audio: c.Audio,
		Carried: c.CarriedFields, Dropped: c.DroppedFields, CarriedText: c.CarriedFieldsText(), DroppedText: c.DroppedFieldsText()}, shape, o.asJSON)
}
