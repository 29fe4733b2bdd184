package rowfile

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/results"
)

// Defaults for NewWriter. A row group every 10,000 rows bounds the rows held in memory
// (~10 MB) and keeps row groups few at 20,000 rows/s (footer metadata grows per group); the
// 1 s interval puts rows in row groups promptly when traffic is light and is how often the
// journal is synced (what a power loss can take).
const (
	DefaultFlushRows     = 10000
	DefaultFlushInterval = time.Second
	// queueLen is how many rows may wait for the writer goroutine before Write blocks: about
	// three seconds at 20,000 rows/s, enough to ride out a row-group flush.
	queueLen = 1 << 16
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("results: writer is closed")

// WriterOptions tune when row groups are flushed; zero fields take the defaults.
type WriterOptions struct {
	FlushRows     int
	FlushInterval time.Duration
	// NoJournal writes the Parquet file alone, without requests.journal beside it: for files
	// rebuilt from a journal, and to measure what the journal costs. Such a file is lost
	// whole if the process is killed before Close.
	NoJournal bool
}

// Writer streams rows to a Parquet file. Write is safe for concurrent use: rows go through a
// buffered channel to one goroutine that encodes them, so a sender never waits on encoding
// or on a row-group flush (only, if ever, on a full queue).
//
// What survives what: each batch of rows the goroutine takes from the queue is appended to
// the journal beside the file (JournalPath) in one write before it is encoded, and the
// journal is synced every FlushInterval. A killed process (SIGKILL, OOM) therefore loses only
// the rows still in the queue, a power loss at most the last FlushInterval's, and a full disk
// at most the rows after the first failed write; ReadJournal and Recover get the rest back.
// Parquet row groups are written every FlushRows rows or FlushInterval; Close flushes the rest,
// writes the footer, syncs the file and only then removes the journal, so a run that exits
// through Close (normal end, SIGINT, SIGTERM, context cancellation) leaves the folder as it
// always did: one valid requests.parquet with every row. parquet-go writes the footer only in
// Close, which is why a Parquet file alone cannot survive a kill.
type Writer struct {
	path string
	f    *os.File
	pw   *parquet.GenericWriter[results.Row]
	j    *journal // nil with NoJournal

	mu     sync.RWMutex // guards closed against concurrent Write/Close, and meta
	closed bool
	meta   [][2]string // key-value metadata set before Close (Recover's)
	rows   chan results.Row
	flush  chan chan error
	done   chan struct{}

	written  atomic.Int64 // rows accepted by Write
	errv     atomic.Pointer[error]
	closeErr error

	flushRows     int
	flushInterval time.Duration
}

// Pages are left uncompressed: measured here on rows of 150 chunk offsets, Snappy cost about
// four times the CPU of encoding alone (70% of the writer's time) and saved only 19% of the
// bytes, and the writer shares two cores with the pacer and thousands of streams. Compress
// afterwards if the file is to be kept.

// NewWriter creates (or truncates) the file at path and its journal, and starts a writer with
// the default flush policy.
func NewWriter(path string) (*Writer, error) {
	return NewWriterWith(path, WriterOptions{})
}

// NewWriterWith is NewWriter with a flush policy. The journal is created (replacing any
// earlier one) before the Parquet file is truncated, so a journal on disk is always the
// latest run's.
func NewWriterWith(path string, o WriterOptions) (*Writer, error) {
	if o.FlushRows <= 0 {
		o.FlushRows = DefaultFlushRows
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	w := &Writer{path: path, rows: make(chan results.Row, queueLen), flush: make(chan chan error),
		done: make(chan struct{}), flushRows: o.FlushRows, flushInterval: o.FlushInterval}
	if !o.NoJournal {
		j, err := createJournal(JournalPath(path))
		if err != nil {
			return nil, err
		}
		w.j = j
	}
	f, err := os.Create(path)
	if err != nil {
		if w.j != nil {
			w.j.close(true)
		}
		return nil, fmt.Errorf("results: %w", err)
	}
	w.f = f
	w.pw = parquet.NewGenericWriter[results.Row](f, parquet.Compression(&parquet.Uncompressed))
	go w.loop()
	return w, nil
}

// Write queues one row. The writer takes ownership of the row's slices: do not modify them
// afterwards. It returns the first write error met so far, if any.
func (w *Writer) Write(row results.Row) error {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return ErrClosed
	}
	if err := w.err(); err != nil {
		return err
	}
	w.rows <- row
	w.written.Add(1)
	return nil
}

// Add is Write as a run's output (runner.Output): the sink hands it each finished row and
// closes it at the end, and Close returns the first write error, so Add drops Write's.
func (w *Writer) Add(r *results.Row) { _ = w.Write(*r) }

// Flush writes every row queued so far to the file as a row group, syncs the journal and
// returns once both are there (the Parquet file becomes readable only at Close).
func (w *Writer) Flush() error {
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return ErrClosed
	}
	reply := make(chan error, 1)
	w.flush <- reply
	w.mu.RUnlock()
	return <-reply
}

// Rows returns how many rows Write accepted.
func (w *Writer) Rows() int64 { return w.written.Load() }

// Close writes the remaining rows and the footer, syncs and closes the file, then removes the
// journal (kept if anything failed). It is safe to call more than once and from any
// goroutine; later calls return the first result.
func (w *Writer) Close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.rows)
	}
	w.mu.Unlock()
	<-w.done
	return w.closeErr
}

// setMetadata adds a key-value pair to the footer; it must be called before Close.
func (w *Writer) setMetadata(key, value string) {
	w.mu.Lock()
	w.meta = append(w.meta, [2]string{key, value})
	w.mu.Unlock()
}

func (w *Writer) err() error {
	if p := w.errv.Load(); p != nil {
		return *p
	}
	return nil
}

func (w *Writer) setErr(err error) {
	if err != nil {
		w.errv.CompareAndSwap(nil, &err)
	}
}

// loopState is what the writer's goroutine keeps between rows.
type loopState struct {
	w       *Writer
	batch   []results.Row
	pending int64 // rows written to pw but not flushed
	n       int64 // rows taken from the queue
	last    time.Time
}

// loop is the only goroutine touching the Parquet writer and the journal.
func (w *Writer) loop() {
	defer close(w.done)
	tick := time.NewTicker(w.flushInterval)
	defer tick.Stop()
	st := &loopState{w: w, last: time.Now()}
	for {
		select {
		case row, ok := <-w.rows:
			if ok {
				st.batch = append(st.batch, row)
				// Drain what is queued into one journal write and one Write call: cheaper
				// than one of each per row.
				ok = st.drain(1024)
			}
			st.write()
			if !ok {
				w.closeErr = w.finish()
				return
			}
			if st.pending >= int64(w.flushRows) {
				st.flush()
			}
		case reply := <-w.flush:
			// Rows queued before the Flush call are in the channel ahead of nothing we can
			// see, so drain what is there now first.
			st.drain(-1)
			reply <- st.flush()
		case <-tick.C:
			if time.Since(st.last) >= w.flushInterval {
				st.flush()
			} else {
				st.sync()
			}
		}
	}
}

// drain moves queued rows into the batch until it holds limit rows (no limit if negative) or
// the queue is empty; it returns false once the queue is closed.
func (st *loopState) drain(limit int) bool {
	for limit < 0 || len(st.batch) < limit {
		select {
		case row, ok := <-st.w.rows:
			if !ok {
				return false
			}
			st.batch = append(st.batch, row)
		default:
			return true
		}
	}
	return true
}

// write appends the batch to the journal, then hands it to the Parquet writer.
func (st *loopState) write() {
	w := st.w
	if len(st.batch) == 0 {
		return
	}
	if w.j != nil && w.err() == nil {
		w.setErr(w.j.append(st.batch))
	}
	if w.err() == nil {
		if _, err := w.pw.Write(st.batch); err != nil {
			w.setErr(fmt.Errorf("results: %s: row %d: %w", w.path, st.n, err))
		}
	}
	st.n += int64(len(st.batch))
	st.pending += int64(len(st.batch))
	clear(st.batch)
	st.batch = st.batch[:0]
}

// sync puts the journal's rows on stable storage: a power loss then keeps them.
func (st *loopState) sync() {
	if w := st.w; w.j != nil && w.err() == nil {
		w.setErr(w.j.sync())
	}
}

// flush writes the batch, syncs the journal and closes a row group.
func (st *loopState) flush() error {
	w := st.w
	st.write()
	st.sync()
	if st.pending == 0 || w.err() != nil {
		return w.err()
	}
	if err := w.pw.Flush(); err != nil {
		w.setErr(fmt.Errorf("results: %s: flushing rows up to %d: %w", w.path, st.n, err))
		return w.err()
	}
	st.pending = 0
	st.last = time.Now()
	return nil
}

// finish writes the footer and closes the file, reporting the first error of the run; then,
// only if all went well, it removes the journal. Only a file that got every row carries the
// journal's id (MetaJournalID): after a failed write the journal stays the truth for Recover.
func (w *Writer) finish() error {
	err := w.err()
	w.mu.RLock()
	for _, kv := range w.meta {
		w.pw.SetKeyValueMetadata(kv[0], kv[1])
	}
	w.mu.RUnlock()
	if w.j != nil && err == nil {
		w.pw.SetKeyValueMetadata(MetaJournalID, hex.EncodeToString(w.j.id[:]))
	}
	if cerr := w.pw.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("results: %s: writing footer: %w", w.path, cerr)
	}
	if serr := w.f.Sync(); serr != nil && err == nil {
		err = fmt.Errorf("results: %s: %w", w.path, serr)
	}
	if cerr := w.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("results: %s: %w", w.path, cerr)
	}
	if w.j != nil {
		if jerr := w.j.close(err == nil); jerr != nil && err == nil {
			err = jerr
		}
	}
	return err
}
