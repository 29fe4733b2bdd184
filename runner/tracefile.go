package runner

import (
	"fmt"
	"io"
	"os"

	"github.com/llm-replay/replay/accesslog"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// records is a trace being read: ingest's readers for traces, accesslog's for raw request logs.
type records interface {
	Next() (trace.Record, error)
	Rejected() int64
	Close() error
}

// openRecords opens the trace at path. A request log (--format openai-log, or detected by
// --format auto) is read with the run's own tokenizer and chat template: the prompt lengths
// it yields are those the served model counts, which is what replay then synthesizes.
func openRecords(path, tokPath string, opts ingest.Options) (records, error) {
	isLog, err := accesslog.IsRequestLog(opts.Format, path)
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
	tok, chat, err := accesslog.LoadModel(tokPath)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	lr := &logRecords{}
	q := opts.Quarantine
	if opts.QuarantinePath != "" {
		f, err := os.Create(opts.QuarantinePath)
		if err != nil {
			return nil, fmt.Errorf("--quarantine: %w", err)
		}
		q, lr.quarantine = f, f
	}
	lr.Reader, err = accesslog.Open(path, accesslog.Options{
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
	*accesslog.Reader
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
		if cerr := r.quarantine.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// readWindow reads the trace's records inside the scheduler's From/To window and Limit, so
// that prompts are built only for what will be sent. The scheduler re-bases the window itself.
func readWindow(path, tokPath string, cfg Config) ([]trace.Record, error) {
	rd, err := openRecords(path, tokPath, cfg.Ingest)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var recs []trace.Record
	from, to := cfg.Schedule.From, cfg.Schedule.To
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if rec.Timestamp < from || (to > 0 && rec.Timestamp >= to) {
			continue
		}
		recs = append(recs, rec)
		if cfg.Limit > 0 && len(recs) >= cfg.Limit {
			break
		}
	}
	if n := rd.Rejected(); n > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: %s: %d rows rejected (--on-error skip)\n", path, n)
	}
	return recs, nil
}
