package outfiles

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// Set is the output files of one job. If the job fails, the ones that would look complete
// though they are not are removed; a quarantine is kept, since it says what went wrong.
type Set struct {
	open    []io.Closer
	created []string // removed on failure
}

// RecordWriter is what both trace file writers offer.
type RecordWriter interface {
	Write(trace.Record) error
	Close() error
}

// File creates a plain output file; keep leaves it in place when the job fails.
func (o *Set) File(path string, keep bool) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	o.open = append(o.open, f)
	if !keep {
		o.created = append(o.created, path)
	}
	return f, nil
}

// Records creates a trace writer: Arrow IPC when the path ends in .arrow, .feather or .ipc,
// Parquet otherwise.
func (o *Set) Records(path string) (RecordWriter, error) {
	var w RecordWriter
	var err error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".arrow", ".feather", ".ipc":
		w, err = trace.CreateArrowFile(path)
	default:
		w, err = trace.CreateFile(path)
	}
	if err != nil {
		return nil, err
	}
	o.open = append(o.open, w)
	o.created = append(o.created, path)
	return w, nil
}

// Close closes every output, last created first, and returns the first error. Calling it
// again does nothing.
func (o *Set) Close() error {
	var errs []error
	for i := len(o.open) - 1; i >= 0; i-- {
		errs = append(errs, o.open[i].Close())
	}
	o.open = nil
	return errors.Join(errs...)
}

// Finish is deferred with the job's error: it closes what is still open and, when the job
// failed, removes the outputs that are not kept.
func (o *Set) Finish(err *error) {
	if cerr := o.Close(); *err == nil {
		*err = cerr
	}
	if *err != nil {
		for _, p := range o.created {
			os.Remove(p)
		}
	}
}
