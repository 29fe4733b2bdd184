package ingest

import (
	"fmt"
	"strings"
)

// noColumn is the error of a field whose column the file's header (or Parquet schema) lacks:
// what the file has, and the --map that points the field at one of its columns. A column the
// user's own --map named gets the same list, so the fix is one edit of what was typed.
func noColumn(field, col string, userMapped bool, columns []string) error {
	have := columnList(columns)
	if userMapped {
		return fmt.Errorf("--map %s=%s: no column %q (columns: %s): pass --map %s=COLUMN with one of them", field, col, col, have, field)
	}
	return fmt.Errorf("no column %q for field %s (columns: %s): pass --map %s=COLUMN naming the column that holds it", col, field, have, field)
}

// columnList is the columns for a message, at most 20 of them.
func columnList(columns []string) string {
	if len(columns) == 0 {
		return "none"
	}
	if len(columns) > 20 {
		return strings.Join(columns[:20], ", ") + fmt.Sprintf(" and %d more", len(columns)-20)
	}
	return strings.Join(columns, ", ")
}

// missingKey is the error of a JSON line without the key a required field is read from: the
// --map that points the field at the key the line does hold it under.
func missingKey(field string) error {
	return fmt.Errorf("%w (no such key in the line): pass --map %s=KEY naming the key that holds it", errMissing, field)
}
