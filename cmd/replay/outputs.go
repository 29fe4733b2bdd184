package main

import (
	"errors"
	"io"
	"os"
)

// outputs are the files one ingest writes. If the command fails, the ones that would look
// complete though they are not are removed; a quarantine is kept, since it says what went wrong.
type outputs struct {
	open    []io.Closer
	created []string // removed on failure
}

// file creates a plain output file; keep leaves it in place when the command fails.
func (o *outputs) file(path string, keep bool) (*os.File, error) {
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

// records creates a trace writer, Parquet or Arrow by the path's extension.
func (o *outputs) records(path string) (recordWriter, error) {
	w, err := createWriter(path)
	if err != nil {
		return nil, err
	}
	o.open = append(o.open, w)
	o.created = append(o.created, path)
	return w, nil
}

// close closes every output, last created first, and returns the first error. Calling it
// again does nothing.
func (o *outputs) close() error {
	var errs []error
	for i := len(o.open) - 1; i >= 0; i-- {
		errs = append(errs, o.open[i].Close())
	}
	o.open = nil
	return errors.Join(errs...)
}

// finish is deferred with the command's error: it closes what is still open and, when the
// command failed, removes the outputs that are not kept.
func (o *outputs) finish(err *error) {
	if cerr := o.close(); *err == nil {
		*err = cerr
	}
	if *err != nil {
		for _, p := range o.created {
			os.Remove(p)
		}
	}
}
