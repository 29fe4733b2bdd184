package ingest

// source is one format's row parser. The Reader built on it adds validation, time origin,
// ordering, error policy and quarantine, so a source only knows its syntax.
type source interface {
	// next parses the next row into r. It returns io.EOF after the last row, a *RowError for
	// a bad row (the source stays usable and the next call moves on), or any other error
	// when the input cannot be read further.
	next(r *row) error
	// raw is the last row's input as it should go to the quarantine (without newline).
	raw() []byte
	// where says where the last row is, for validation errors found after parsing.
	where() *RowError
	close() error
}
