package trace

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// ArrowSchema is the Arrow IPC export's schema: the same column names and meanings as the
// Parquet file (SCHEMA.md), so `pyarrow.ipc.open_file(...)` or `polars.read_ipc(...)` sees the
// same table as `pandas.read_parquet(...)`.
var ArrowSchema = arrow.NewSchema([]arrow.Field{
	{Name: "timestamp_ns", Type: arrow.PrimitiveTypes.Int64},
	{Name: "prompt_tokens", Type: arrow.PrimitiveTypes.Int64},
	{Name: "output_tokens", Type: arrow.PrimitiveTypes.Int64},
	{Name: "block_hashes", Type: arrow.ListOf(arrow.PrimitiveTypes.Uint64)},
	{Name: "block_size", Type: arrow.PrimitiveTypes.Int64},
	{Name: "session_id", Type: arrow.BinaryTypes.String},
	{Name: "turn", Type: arrow.PrimitiveTypes.Int64},
	{Name: "model", Type: arrow.BinaryTypes.String},
	{Name: "source", Type: arrow.BinaryTypes.String},
	{Name: "line", Type: arrow.PrimitiveTypes.Int64},
	{Name: "options", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "media", Type: arrow.BinaryTypes.String, Nullable: true},
}, &arrowMetadata)

var arrowMetadata = arrow.NewMetadata([]string{SchemaVersionKey}, []string{SchemaVersion})

// arrowBatch is the number of rows per Arrow record batch.
const arrowBatch = 64 * 1024

// ArrowWriter streams records into an Arrow IPC file (the "Feather v2" file format).
type ArrowWriter struct {
	fw     *ipc.FileWriter
	b      *array.RecordBuilder
	n      int
	closer io.Closer
}

// NewArrowWriter writes an Arrow IPC file to w. Call Close to write the footer.
func NewArrowWriter(w io.WriteSeeker) (*ArrowWriter, error) {
	mem := memory.NewGoAllocator()
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(ArrowSchema), ipc.WithAllocator(mem))
	if err != nil {
		return nil, fmt.Errorf("trace: arrow writer: %w", err)
	}
	return &ArrowWriter{fw: fw, b: array.NewRecordBuilder(mem, ArrowSchema)}, nil
}

// CreateArrowFile creates path and returns an ArrowWriter whose Close also closes the file.
func CreateArrowFile(path string) (*ArrowWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := NewArrowWriter(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.closer = f
	return w, nil
}

// Write appends one record.
func (w *ArrowWriter) Write(r Record) error {
	opts, err := EncodeOptions(r.Options)
	if err != nil {
		return fmt.Errorf("trace: record %s:%d: %w", r.Source, r.Line, err)
	}
	med, err := EncodeMedia(r.Media)
	if err != nil {
		return fmt.Errorf("trace: record %s:%d: %w", r.Source, r.Line, err)
	}
	b := w.b
	b.Field(0).(*array.Int64Builder).Append(int64(r.Timestamp))
	b.Field(1).(*array.Int64Builder).Append(int64(r.PromptTokens))
	b.Field(2).(*array.Int64Builder).Append(int64(r.OutputTokens))
	lb := b.Field(3).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.Uint64Builder).AppendValues(r.BlockHashes, nil)
	b.Field(4).(*array.Int64Builder).Append(int64(r.BlockSize))
	b.Field(5).(*array.StringBuilder).Append(r.SessionID)
	b.Field(6).(*array.Int64Builder).Append(int64(r.Turn))
	b.Field(7).(*array.StringBuilder).Append(r.Model)
	b.Field(8).(*array.StringBuilder).Append(r.Source)
	b.Field(9).(*array.Int64Builder).Append(r.Line)
	appendText(b.Field(10).(*array.StringBuilder), opts)
	appendText(b.Field(11).(*array.StringBuilder), med)
	w.n++
	if w.n == arrowBatch {
		return w.flush()
	}
	return nil
}

// appendText appends JSON text, null for none.
func appendText(b *array.StringBuilder, text []byte) {
	if text == nil {
		b.AppendNull()
		return
	}
	b.Append(string(text))
}

func (w *ArrowWriter) flush() error {
	if w.n == 0 {
		return nil
	}
	rec := w.b.NewRecord()
	defer rec.Release()
	w.n = 0
	if err := w.fw.Write(rec); err != nil {
		return fmt.Errorf("trace: writing arrow batch: %w", err)
	}
	return nil
}

// Close writes the last batch and the footer, and closes the file if CreateArrowFile opened it.
func (w *ArrowWriter) Close() error {
	err := w.flush()
	if cerr := w.fw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("trace: closing arrow file: %w", cerr)
	}
	w.b.Release()
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil {
			err = cerr
		}
		w.closer = nil
	}
	return err
}

// ReadArrowFile reads every record of an Arrow IPC file written by ArrowWriter (used by tests
// and by anyone who wants the export back).
func ReadArrowFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fr, err := ipc.NewFileReader(f, ipc.WithSchema(ArrowSchema))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer fr.Close()
	var out []Record
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.Record(i)
		if err != nil {
			return out, fmt.Errorf("%s: batch %d: %w", path, i, err)
		}
		ts := rec.Column(0).(*array.Int64)
		pt := rec.Column(1).(*array.Int64)
		ot := rec.Column(2).(*array.Int64)
		bh := rec.Column(3).(*array.List)
		bhv := bh.ListValues().(*array.Uint64)
		bs := rec.Column(4).(*array.Int64)
		sid := rec.Column(5).(*array.String)
		turn := rec.Column(6).(*array.Int64)
		model := rec.Column(7).(*array.String)
		src := rec.Column(8).(*array.String)
		line := rec.Column(9).(*array.Int64)
		opts := rec.Column(10).(*array.String)
		var med *array.String // absent from files of schema version 2
		if rec.NumCols() > 11 {
			med, _ = rec.Column(11).(*array.String)
		}
		for j := 0; j < int(rec.NumRows()); j++ {
			r := Record{
				Timestamp:    time.Duration(ts.Value(j)),
				PromptTokens: int(pt.Value(j)),
				OutputTokens: int(ot.Value(j)),
				BlockSize:    int(bs.Value(j)),
				SessionID:    sid.Value(j),
				Turn:         int(turn.Value(j)),
				Model:        model.Value(j),
				Source:       src.Value(j),
				Line:         line.Value(j),
			}
			if opts.IsValid(j) {
				if r.Options, err = DecodeOptions([]byte(opts.Value(j))); err != nil {
					return out, fmt.Errorf("%s: batch %d row %d: %w", path, i, j, err)
				}
			}
			if med != nil && med.IsValid(j) {
				if r.Media, err = DecodeMedia([]byte(med.Value(j))); err != nil {
					return out, fmt.Errorf("%s: batch %d row %d: media: %w", path, i, j, err)
				}
			}
			start, end := bh.ValueOffsets(j)
			if end > start {
				r.BlockHashes = append([]uint64(nil), bhv.Uint64Values()[start:end]...)
			}
			out = append(out, r)
		}
	}
	return out, nil
}
