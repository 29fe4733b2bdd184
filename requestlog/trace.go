package requestlog

import (
	"errors"
	"fmt"
	"os"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// init registers the request-log reader with ingest, so that ingest.Open reads request logs
// (--format openai-log, or detected) like any trace; ingest cannot import this package, which
// needs the tokenizer and the chat template.
func init() {
	ingest.Register(ingest.FormatOpenAILog, openTrace)
	ingest.Describe(about)
}

// openTrace is ingest.Open for a request log: the records only, counted with the tokenizer and
// chat template at opts.Tokenizer and hashed with a random key (Convert is the conversion with
// every choice). opts.BlockSize 0 means DefaultBlockSize.
func openTrace(path string, opts ingest.Options) (ingest.Reader, error) {
	if opts.Tokenizer == "" {
		return nil, fmt.Errorf("%s is a request log: reading it needs --tokenizer (the served model's tokenizer.json or folder), since prompt lengths come from rendering and tokenizing each request", path)
	}
	tok, chat, err := LoadModel(opts.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	tr := &traceReader{}
	q := opts.Quarantine
	if opts.QuarantinePath != "" {
		f, err := os.Create(opts.QuarantinePath)
		if err != nil {
			return nil, fmt.Errorf("quarantine: %w", err)
		}
		q, tr.quarantine = f, f
	}
	ro := Options{
		Tokenizer: tok, Chat: chat, BlockSize: opts.BlockSize, Map: opts.Map,
		TimeUnit: opts.TimeUnit, OnError: opts.OnError, Quarantine: q,
	}
	if err = ro.SetImages(opts.Tokenizer, opts.ImageSize, opts.ImageTokens, opts.LoggedModel); err == nil {
		if err = ro.SetAudio(opts.Tokenizer, opts.AudioTokensPerSecond); err == nil {
			tr.r, err = Open(path, ro)
		}
	}
	if err != nil {
		if tr.quarantine != nil {
			tr.quarantine.Close()
		}
		return nil, err
	}
	return tr, nil
}

// traceReader is a Reader seen as an ingest.Reader: records without the text, counts without
// the usage checks.
type traceReader struct {
	r          *Reader
	quarantine *os.File // created for opts.QuarantinePath, closed with the reader
}

func (t *traceReader) Next() (trace.Record, error) {
	req, err := t.r.Next()
	return req.Record, err
}

func (t *traceReader) Counts() ingest.Counts {
	c := t.r.Counts()
	return ingest.Counts{Records: c.Records, Rejected: c.Rejected, Errors: c.Errors, Images: c.Images, ImageRules: c.ImageRules, ImagesSizeInferred: c.ImagesSizeInferred}
}

func (t *traceReader) Close() error {
	err := t.r.Close()
	if t.quarantine != nil {
		err = errors.Join(err, t.quarantine.Close())
	}
	return err
}

// about is --format help's line for openai-log.
var about = ingest.About{Format: ingest.FormatOpenAILog,
	Reads: "raw request logs: each line's request body and answer (chat, completions, responses, messages, embeddings; images: chat's image_url, Responses input_image and input_file, Messages image blocks; audio: chat's input_audio), counted with --tokenizer",
	Example: `{"timestamp": "2025-01-24T09:20:46Z", "request": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}, ` +
		`"response": {"usage": {"prompt_tokens": 9, "completion_tokens": 12}}}`}
