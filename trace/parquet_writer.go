// Writer: records streamed into a normalized trace Parquet file.

package trace

import (
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
)

// rowsPerGroup bounds the writer's memory: a row group is buffered until it is flushed.
const rowsPerGroup = 128 * 1024

// writeBatch is how many rows the writer hands parquet-go at once.
const writeBatch = 1024

// Writer streams records into a normalized trace Parquet file.
type Writer struct {
	pw     *parquet.GenericWriter[parquetRow]
	buf    []parquetRow
	closer io.Closer
	n      int64
}

// NewWriter writes a normalized trace to w. Call Close to flush the footer.
func NewWriter(w io.Writer) *Writer {
	pw := parquet.NewGenericWriter[parquetRow](w,
		parquet.Compression(&snappy.Codec{}),
		parquet.MaxRowsPerRowGroup(rowsPerGroup),
		parquet.KeyValueMetadata(SchemaVersionKey, SchemaVersion),
	)
	return &Writer{pw: pw, buf: make([]parquetRow, 0, writeBatch)}
}

// CreateFile creates path and returns a Writer whose Close also closes the file.
func CreateFile(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := NewWriter(f)
	w.closer = f
	return w, nil
}

// Write appends one record.
func (w *Writer) Write(r Record) error {
	opts, err := EncodeOptions(r.Options)
	if err != nil {
		return fmt.Errorf("trace: record %d (%s:%d): %w", w.n+1, r.Source, r.Line, err)
	}
	med, err := EncodeMedia(r.Media)
	if err != nil {
		return fmt.Errorf("trace: record %d (%s:%d): %w", w.n+1, r.Source, r.Line, err)
	}
	hdr, err := EncodeHeaders(r.Headers)
	if err != nil {
		return fmt.Errorf("trace: record %d (%s:%d): %w", w.n+1, r.Source, r.Line, err)
	}
	w.buf = append(w.buf, parquetRow{
		TimestampNs:  int64(r.Timestamp),
		PromptTokens: int64(r.PromptTokens),
		OutputTokens: int64(r.OutputTokens),
		BlockHashes:  r.BlockHashes,
		BlockSize:    int64(r.BlockSize),
		SessionID:    r.SessionID,
		Turn:         int64(r.Turn),
		Model:        r.Model,
		Source:       r.Source,
		Line:         r.Line,
		Options:      string(opts),
		Media:        string(med),
		Headers:      string(hdr),
	})
	w.n++
	if len(w.buf) == cap(w.buf) {
		return w.flushBatch()
	}
	return nil
}

// Count is the number of records written so far.
func (w *Writer) Count() int64 { return w.n }

func (w *Writer) flushBatch() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.pw.Write(w.buf)
	clear(w.buf) // drop references to the callers' hash slices
	w.buf = w.buf[:0]
	if err != nil {
		return fmt.Errorf("trace: writing parquet: %w", err)
	}
	return nil
}

// Close flushes the remaining rows and the footer, and closes the file if CreateFile opened it.
func (w *Writer) Close() error {
	err := w.flushBatch()
	if cerr := w.pw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("trace: closing parquet: %w", cerr)
	}
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil {
			err = cerr
		}
		w.closer = nil
	}
	return err
}

// WriteFile writes recs to path as a normalized trace: the designed traces a study replays
// (a calibration grid, a closed loop) are whole in memory before they are written.
func WriteFile(path string, recs []Record) error {
	w, err := CreateFile(path)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			_ = w.Close()
			return err
		}
	}
	return w.Close()
}
