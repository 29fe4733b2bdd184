package shard

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// ctxEvery is how many rows pass between checks of the merge's context.
const ctxEvery = 4096

// rowCopy streams every shard's rows, in order of K and each shard's file order, into one
// results file and one aggregation, checking on the way that no request id is in two shards.
type rowCopy struct {
	w *rowfile.Writer
	m *analysis.Metrics
	// owner maps each measured request id to the index of the folder it was first seen in:
	// the ids must be kept whole (not hashed) for the check to be exact and its error to name
	// the id. About 50 bytes a request, beside the ~30 the aggregation keeps anyway.
	owner map[string]int32
	rows  int64
}

// copyRows writes out/requests.parquet with every row of every folder, adding each to m, and
// fills each folder's row counts. The file is put in place only when whole
// (runfolder.Replace), so a failed merge (a duplicate id, a damaged shard) leaves no
// requests.parquet that looks merged.
func copyRows(ctx context.Context, out string, fs []*Folder, m *analysis.Metrics) (int64, error) {
	var rows int64
	err := runfolder.Replace(filepath.Join(out, runfolder.Requests), func(tmp string) error {
		// No journal: a merge cut short is simply run again, from the shards.
		w, err := rowfile.NewWriterWith(tmp, rowfile.WriterOptions{NoJournal: true})
		if err != nil {
			return err
		}
		c := &rowCopy{w: w, m: m, owner: map[string]int32{}}
		for i := range fs {
			if err = c.folder(ctx, fs, i); err != nil {
				break
			}
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		rows = c.rows
		return err
	})
	if err != nil {
		return 0, err
	}
	return rows, nil
}

// folder copies the rows of fs[i].
func (c *rowCopy) folder(ctx context.Context, fs []*Folder, i int) error {
	f := fs[i]
	f.FirstRow = c.rows
	err := rowfile.Read(f.rowsPath(), func(r results.Row) error {
		if c.rows%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := c.claim(fs, i, &r); err != nil {
			return err
		}
		c.m.Add(&r)
		f.Rows++
		c.rows++
		return c.w.Write(r)
	})
	var dup *duplicateError
	if errors.As(err, &dup) {
		return dup // its own message names both folders; Read's prefix would repeat one
	}
	return err
}

// claim counts the row's request for folder fs[i], and refuses an id already claimed by
// another folder. Rows of one id within a folder are that request's attempts (--retries).
// Warmup rows are each shard's own throwaway requests, numbered alike on every shard, and
// are not requests of the schedule.
func (c *rowCopy) claim(fs []*Folder, i int, r *results.Row) error {
	f := fs[i]
	if r.Warmup {
		f.WarmupRows++
		return nil
	}
	o, seen := c.owner[r.RequestID]
	switch {
	case !seen:
		c.owner[r.RequestID] = int32(i)
		f.RequestIDs++
	case int(o) != i:
		return &duplicateError{id: r.RequestID, first: fs[o], second: f}
	}
	return nil
}

// duplicateError is a request id found in two shards' folders.
type duplicateError struct {
	id            string
	first, second *Folder
}

func (e *duplicateError) Error() string {
	return fmt.Sprintf("shard: merge: request id %q is in both %s and %s: the shards of one run send disjoint requests, so these folders are not the shares of one run (or one was copied into another)",
		e.id, e.first.Label(), e.second.Label())
}
