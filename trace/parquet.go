// The normalized trace file's Parquet schema: its row (parquetRow, as in SCHEMA.md), its
// version, and the check that a file's schema is it.

package trace

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
)

// SchemaVersion is stored in the Parquet key/value metadata under SchemaVersionKey so that a
// future change of the normalized schema can be detected when reading an older file.
const (
	SchemaVersion    = "4"
	SchemaVersionKey = "replay.trace.schema_version"
)

// parquetRow is the normalized trace file's row. The schema, also written down in SCHEMA.md:
//
//	message trace {
//	  required int64  timestamp_ns (DELTA_BINARY_PACKED);   // Record.Timestamp, ns from trace origin
//	  required int64  prompt_tokens;                         // Record.PromptTokens
//	  required int64  output_tokens;                         // Record.OutputTokens
//	  required group  block_hashes (LIST) {                  // Record.BlockHashes, empty list = nil
//	    repeated group list { required int64 element (INT(64,false)) (DELTA_BINARY_PACKED); }
//	  }
//	  required int64  block_size;                            // Record.BlockSize, 0 = no hashes
//	  required binary session_id (STRING) (dictionary);      // Record.SessionID, "" = none
//	  required int64  turn;                                  // Record.Turn
//	  required binary model (STRING) (dictionary);           // Record.Model, "" = unknown
//	  required binary source (STRING) (dictionary);          // Record.Source, the input file
//	  required int64  line;                                  // Record.Line, 1-based line/row there
//	  optional binary options (STRING);                      // Record.Options as JSON, null = nil
//	  optional binary media (STRING);                        // Record.Media as JSON, null = nil
//	  optional binary headers (STRING);                      // Record.Headers as JSON, null = nil
//	}
//
// Integers are 64-bit so no Record value is ever truncated; the encodings keep them small.
// options (version 2), media (version 3) and headers (version 4) are the optional columns:
// files of older versions lack them, and read as records without them.
// Pages are Snappy-compressed: zstd made files 2x smaller than plain but decoding it was the
// largest cost of reading a trace back.
type parquetRow struct {
	TimestampNs  int64    `parquet:"timestamp_ns,delta"`
	PromptTokens int64    `parquet:"prompt_tokens"`
	OutputTokens int64    `parquet:"output_tokens"`
	BlockHashes  []uint64 `parquet:"block_hashes,list" parquet-element:",delta"`
	BlockSize    int64    `parquet:"block_size"`
	SessionID    string   `parquet:"session_id,dict"`
	Turn         int64    `parquet:"turn"`
	Model        string   `parquet:"model,dict"`
	Source       string   `parquet:"source,dict"`
	Line         int64    `parquet:"line,delta"`
	Options      string   `parquet:"options,optional"` // "" (null) when Record.Options is nil
	Media        string   `parquet:"media,optional"`   // "" (null) when Record.Media is nil
	Headers      string   `parquet:"headers,optional"` // "" (null) when Record.Headers is nil
}

// schemaColumns are the leaf column indexes of the normalized schema in one file.
type schemaColumns struct {
	ts, prompt, output, hashes, blockSize, session, turn, model, source, line int
	hashMaxDef                                                                int
	options, optionsMaxDef                                                    int // options -1 when absent
	media, mediaMaxDef                                                        int // media -1 when absent
	headers, headersMaxDef                                                    int // headers -1 when absent
}

// lookupColumns finds the normalized columns and checks their shapes, so decoding can rely on
// them (required int64 and string columns, a list of int64 hashes).
func lookupColumns(s *parquet.Schema) (schemaColumns, error) {
	var c schemaColumns
	scalar := func(name string, kind parquet.Kind, dst *int) error {
		leaf, ok := s.Lookup(name)
		if !ok {
			return fmt.Errorf("not a normalized trace file: column %q missing", name)
		}
		if leaf.MaxRepetitionLevel != 0 || leaf.MaxDefinitionLevel != 0 || leaf.Node.Type().Kind() != kind {
			return fmt.Errorf("not a normalized trace file: column %q is not a required %s", name, kind)
		}
		*dst = leaf.ColumnIndex
		return nil
	}
	for _, x := range []struct {
		name string
		kind parquet.Kind
		dst  *int
	}{
		{"timestamp_ns", parquet.Int64, &c.ts}, {"prompt_tokens", parquet.Int64, &c.prompt},
		{"output_tokens", parquet.Int64, &c.output}, {"block_size", parquet.Int64, &c.blockSize},
		{"session_id", parquet.ByteArray, &c.session}, {"turn", parquet.Int64, &c.turn},
		{"model", parquet.ByteArray, &c.model}, {"source", parquet.ByteArray, &c.source},
		{"line", parquet.Int64, &c.line},
	} {
		if err := scalar(x.name, x.kind, x.dst); err != nil {
			return c, err
		}
	}
	leaf, ok := s.Lookup("block_hashes", "list", "element")
	if !ok || leaf.MaxRepetitionLevel != 1 || leaf.Node.Type().Kind() != parquet.Int64 {
		return c, fmt.Errorf("not a normalized trace file: column %q missing or not a list of int64", "block_hashes")
	}
	c.hashes, c.hashMaxDef = leaf.ColumnIndex, leaf.MaxDefinitionLevel
	for _, x := range []struct {
		name        string
		col, maxDef *int
	}{{"options", &c.options, &c.optionsMaxDef}, {"media", &c.media, &c.mediaMaxDef}, {"headers", &c.headers, &c.headersMaxDef}} {
		*x.col = -1
		if leaf, ok := s.Lookup(x.name); ok {
			if leaf.MaxRepetitionLevel != 0 || leaf.MaxDefinitionLevel > 1 || leaf.Node.Type().Kind() != parquet.ByteArray {
				return c, fmt.Errorf("not a normalized trace file: column %q is not an optional string", x.name)
			}
			*x.col, *x.maxDef = leaf.ColumnIndex, leaf.MaxDefinitionLevel
		}
	}
	return c, nil
}

// CheckSchema reports whether s is the normalized trace schema.
func CheckSchema(s *parquet.Schema) error {
	_, err := lookupColumns(s)
	return err
}

// IsNormalized reports whether a Parquet schema is the normalized trace schema.
func IsNormalized(s *parquet.Schema) bool { return CheckSchema(s) == nil }
