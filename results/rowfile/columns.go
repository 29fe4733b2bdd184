package rowfile

import (
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/results"
)

// The column reader (colread.go) fills each field of results.Row from its own column. This
// file is the table it goes by: every leaf column of the row's schema, the Parquet kind it
// holds and the field it lands in. A file whose leaves are all in the table, with the same
// kind and levels, is read column by column; any other (a column added or retyped by a
// build this one does not know) goes through parquet-go's generic reader, as before.

// field is one leaf column of results.Row and where its values go: exactly one of the
// setters is set, by kind (chunk_ns, the one list, has none: the reader fills it itself).
type field struct {
	path           string // dotted column path, as in the file's schema
	kind           parquet.Kind
	maxRep, maxDef byte
	i64            func(*results.Row) *int64
	i32            func(*results.Row) *int32
	b              func(*results.Row) *bool
	s              func(*results.Row) *string
}

// chunkPath is the leaf column of Row.ChunkNS: a list of int64.
const chunkPath = "chunk_ns.list.element"

func i64(path string, f func(*results.Row) *int64) field {
	return field{path: path, kind: parquet.Int64, i64: f}
}
func i32(path string, f func(*results.Row) *int32) field {
	return field{path: path, kind: parquet.Int32, i32: f}
}
func boolean(path string, f func(*results.Row) *bool) field {
	return field{path: path, kind: parquet.Boolean, b: f}
}
func str(path string, f func(*results.Row) *string) field {
	return field{path: path, kind: parquet.ByteArray, s: f}
}

// rowFields lists every leaf of results.Row's schema; the test holds it to the schema, so a
// field added to Row without a line here fails it (and, until then, its files would only
// ever take the generic reader).
var rowFields = withLevels([]field{
	str("request_id", func(r *results.Row) *string { return &r.RequestID }),
	boolean("warmup", func(r *results.Row) *bool { return &r.Warmup }),
	str("session_id", func(r *results.Row) *string { return &r.SessionID }),
	i32("turn", func(r *results.Row) *int32 { return &r.Turn }),
	i64("original_timestamp_ns", func(r *results.Row) *int64 { return &r.OriginalTimestampNS }),
	i64("scheduled_ns", func(r *results.Row) *int64 { return &r.ScheduledNS }),
	i64("sent_ns", func(r *results.Row) *int64 { return &r.SentNS }),
	i64("written_ns", func(r *results.Row) *int64 { return &r.WrittenNS }),
	i64("queue_wait_ns", func(r *results.Row) *int64 { return &r.QueueWaitNS }),
	i64("client_backlog_ns", func(r *results.Row) *int64 { return &r.ClientBacklogNS }),
	i64("first_token_ns", func(r *results.Row) *int64 { return &r.FirstTokenNS }),
	i64("last_token_ns", func(r *results.Row) *int64 { return &r.LastTokenNS }),
	i64("done_ns", func(r *results.Row) *int64 { return &r.DoneNS }),
	{path: chunkPath, kind: parquet.Int64},
	i32("target_prompt_tokens", func(r *results.Row) *int32 { return &r.TargetPromptTokens }),
	i32("target_output_tokens", func(r *results.Row) *int32 { return &r.TargetOutputTokens }),
	i32("prompt_tokens", func(r *results.Row) *int32 { return &r.PromptTokens }),
	i32("completion_tokens", func(r *results.Row) *int32 { return &r.CompletionTokens }),
	i32("cached_tokens", func(r *results.Row) *int32 { return &r.CachedTokens }),
	i32("http_status", func(r *results.Row) *int32 { return &r.HTTPStatus }),
	str("error_class", func(r *results.Row) *string { return &r.ErrorClass }),
	str("error_message", func(r *results.Row) *string { return &r.ErrorMessage }),
	str("endpoint", func(r *results.Row) *string { return &r.Endpoint }),
	i64("retry_after_ns", func(r *results.Row) *int64 { return &r.RetryAfterNS }),
	i32("attempt", func(r *results.Row) *int32 { return &r.Attempt }),
	boolean("retried", func(r *results.Row) *bool { return &r.Retried }),
	str("prompt", func(r *results.Row) *string { return &r.Prompt }),
	boolean("cancelled_as_logged", func(r *results.Row) *bool { return &r.CancelledAsLogged }),
	boolean("unforced", func(r *results.Row) *bool { return &r.Unforced }),
	i64("line", func(r *results.Row) *int64 { return &r.Line }),
	str("population", func(r *results.Row) *string { return &r.Population }),
	str("api", func(r *results.Row) *string { return &r.API }),
	str("trace_id", func(r *results.Row) *string { return &r.TraceID }),
	str("finish_reason", func(r *results.Row) *string { return &r.FinishReason }),
	str("model", func(r *results.Row) *string { return &r.Model }),
	str("slo_class", func(r *results.Row) *string { return &r.SLOClass }),
	i64("first_reasoning_ns", func(r *results.Row) *int64 { return &r.FirstReasoningNS }),
	i64("first_answer_ns", func(r *results.Row) *int64 { return &r.FirstAnswerNS }),
	i32("reasoning_tokens", func(r *results.Row) *int32 { return &r.ReasoningTokens }),
	i32("answer_tokens", func(r *results.Row) *int32 { return &r.AnswerTokens }),
	i32("target_reasoning_tokens", func(r *results.Row) *int32 { return &r.TargetReasoningTokens }),
	i32("images", func(r *results.Row) *int32 { return &r.Images }),
	i32("audio_clips", func(r *results.Row) *int32 { return &r.AudioClips }),
	i32("media_tokens", func(r *results.Row) *int32 { return &r.MediaTokens }),
	i64("media_bytes", func(r *results.Row) *int64 { return &r.MediaBytes }),
	i32("server_media_tokens", func(r *results.Row) *int32 { return &r.ServerMediaTokens }),
})

// rowSchema is the schema the writer writes and the generic reader reads into.
var rowSchema = parquet.SchemaOf(results.Row{})

// withLevels takes each field's repetition and definition levels from results.Row's schema
// (a field the schema lacks keeps 255, which no file column matches).
func withLevels(fs []field) map[string]field {
	m := make(map[string]field, len(fs))
	for _, f := range fs {
		f.maxRep, f.maxDef = 255, 255
		if leaf, ok := rowSchema.Lookup(strings.Split(f.path, ".")...); ok {
			f.maxRep, f.maxDef = byte(leaf.MaxRepetitionLevel), byte(leaf.MaxDefinitionLevel)
		}
		m[f.path] = f
	}
	return m
}

// columnFields maps each of the file's leaf columns, by index, to its field; ok is false
// when a column is not one of results.Row's as this build writes it (name, kind, levels,
// logical type), and the generic reader, which converts, must read the file.
func columnFields(s *parquet.Schema) (fs []field, ok bool) {
	for i, path := range s.Columns() {
		leaf, found := s.Lookup(path...)
		name := strings.Join(path, ".")
		f, known := rowFields[name]
		if !found || !known || leaf.ColumnIndex != i {
			return nil, false
		}
		own, _ := rowSchema.Lookup(path...)
		if leaf.Node.Type().Kind() != f.kind || byte(leaf.MaxRepetitionLevel) != f.maxRep ||
			byte(leaf.MaxDefinitionLevel) != f.maxDef || !sameLogical(leaf.Node.Type(), own.Node.Type()) {
			return nil, false
		}
		fs = append(fs, f)
	}
	return fs, true
}

// sameLogical reports whether the file's column type reads into the field as the row's own
// does: the same logical type, or none (plain INT64, INT32 or BYTE_ARRAY hold the same values;
// an unsigned INT(64) holds the same bits as a signed one but not the same Go value).
func sameLogical(file, own parquet.Type) bool {
	return file.LogicalType() == nil || file.String() == own.String()
}
