package accesslog

import (
	"errors"
	"fmt"
	"os"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// Records is a trace being read as records, whatever its format.
type Records interface {
	Next() (trace.Record, error) // io.EOF after the last
	Rejected() int64             // rows skipped under --on-error skip so far
	Close() error
}

// OpenRecords opens the trace at path for the commands that need only its records (run,
// synth, cache-sim): a request log (opts.Format openai-log, or detected under auto; see
// IsRequestLog) through this package with the tokenizer and chat template at tokenizerPath,
// anything else through ingest.Open. opts.BlockSize 0 means each reader's default.
func OpenRecords(path, tokenizerPath string, opts ingest.Options) (Records, error) {
	isLog, err := IsRequestLog(opts.Format, path)
	if err != nil {
		return nil, err
	}
	if !isLog {
		r, err := ingest.Open(path, opts)
		if err != nil {
			return nil, err
		}
		return traceRecords{r}, nil
	}
	if tokenizerPath == "" {
		return nil, fmt.Errorf("%s is a request log: reading it needs --tokenizer (the served model's tokenizer.json or folder), since prompt lengths come from rendering and tokenizing each request", path)
	}
	tok, chat, err := LoadModel(tokenizerPath)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	lr := &logRecords{}
	q := opts.Quarantine
	if opts.QuarantinePath != "" {
		f, err := os.Create(opts.QuarantinePath)
		if err != nil {
			return nil, fmt.Errorf("quarantine: %w", err)
		}
		q, lr.quarantine = f, f
	}
	lr.Reader, err = Open(path, Options{
		Tokenizer: tok, Chat: chat, BlockSize: opts.BlockSize, Map: opts.Map,
		TimeUnit: opts.TimeUnit, OnError: opts.OnError, Quarantine: q,
	})
	if err != nil {
		if lr.quarantine != nil {
			lr.quarantine.Close()
		}
		return nil, err
	}
	return lr, nil
}

type traceRecords struct{ ingest.Reader }

func (r traceRecords) Rejected() int64 { return r.Counts().Rejected }

type logRecords struct {
	*Reader
	quarantine *os.File // created for opts.QuarantinePath, closed with the reader
}

func (r *logRecords) Next() (trace.Record, error) {
	req, err := r.Reader.Next()
	return req.Record, err
}

func (r *logRecords) Rejected() int64 { return r.Counts().Rejected }

func (r *logRecords) Close() error {
	err := r.Reader.Close()
	if r.quarantine != nil {
		err = errors.Join(err, r.quarantine.Close())
	}
	return err
}
