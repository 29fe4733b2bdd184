package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/llm-replay/replay/internal/outfiles"
	"github.com/llm-replay/replay/trace"
)

// NormalizeOptions is one normalization of a trace (`replay ingest` of anything but a request
// log): read it, write the normalized trace files, show every record to Observe, report what
// was rejected.
type NormalizeOptions struct {
	// Trace is the file to read, with Read.
	Trace string
	Read  Options
	// Out is the normalized trace to write (Arrow IPC when its name ends in .arrow, .feather or
	// .ipc, Parquet otherwise) and Arrow one more Arrow IPC file; "" writes none.
	Out, Arrow string
	// Observe, when set, sees every record in order (--stats counts the trace's shape). It may
	// keep what it sees, so the streaming collector setting (SetStreamGC) is used only without
	// it.
	Observe func(trace.Record)
	// Stderr receives the rejected rows and the notes on the read; nil discards them.
	Stderr io.Writer
}

// Normalize runs the job and returns the reader's final counts. When it fails, the trace files
// it began are removed (the quarantine stays: it says what went wrong).
func Normalize(ctx context.Context, job NormalizeOptions) (c Counts, err error) {
	if job.Observe == nil {
		defer SetStreamGC()()
	}
	r, err := Open(job.Trace, job.Read)
	if err != nil {
		return Counts{}, err
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	var outs outfiles.Set
	defer outs.Finish(&err)
	var writers []outfiles.RecordWriter
	for _, p := range []string{job.Out, job.Arrow} {
		if p == "" {
			continue
		}
		w, err := outs.Records(p)
		if err != nil {
			return Counts{}, err
		}
		writers = append(writers, w)
	}
	if err := copyRecords(ctx, r, writers, job.Observe); err != nil {
		return Counts{}, err
	}
	if err := outs.Close(); err != nil {
		return Counts{}, err
	}
	c = r.Counts()
	reportRead(orDiscard(job.Stderr), c, job.Read.QuarantinePath)
	return c, nil
}

// copyRecords writes every record of r to each writer and shows it to observe.
func copyRecords(ctx context.Context, r Reader, writers []outfiles.RecordWriter, observe func(trace.Record)) error {
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, w := range writers {
			if err := w.Write(rec); err != nil {
				return err
			}
		}
		if observe != nil {
			observe(rec)
		}
	}
}

// reportRead tells what the read rejected, where the rejected rows went and what else it met.
func reportRead(w io.Writer, c Counts, quarantine string) {
	WriteFileCounts(w, c)
	WriteRejected(w, c.Errors, c.Rejected, quarantine, "rows")
	if c.HashMismatches > 0 {
		fmt.Fprintf(w, "warning: %d records have a hash count other than ceil(prompt_tokens/block_size)\n", c.HashMismatches)
	}
	if c.Sorted {
		fmt.Fprintln(w, "note: the trace was out of order; records were sorted by time")
	}
}

// WriteRejected prints the kept rejection messages of a read, how many more there were and,
// with a quarantine, where the rejected input went ("rows" or "lines" of it, as what says).
// Request logs report their rejections the same way.
func WriteRejected(w io.Writer, errs []string, rejected int64, quarantine, what string) {
	for _, e := range errs {
		fmt.Fprintf(w, "rejected: %s\n", e)
	}
	if rejected > int64(len(errs)) {
		fmt.Fprintf(w, "rejected: ... %d more\n", rejected-int64(len(errs)))
	}
	if rejected > 0 && quarantine != "" {
		fmt.Fprintf(w, "%d rejected %s written to %s\n", rejected, what, quarantine)
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
