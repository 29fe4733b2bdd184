package gatewaylog

import "slices"

// Schema is one source's log record: how to tell it in a file and how to read one.
type Schema struct {
	// Format is the --format name (litellm, envoy-ai-gateway, ...).
	Format string
	// Doc cites the source's own definition of the record (document and version), for readers
	// of the code; help shows Reads and Example instead (ingest.About).
	Doc string
	// Reads says what the format reads, in a few words; Example is a record of it (a line, or
	// the lines of one request where the source logs it in several), which the tests read.
	Reads, Example string
	// Time is the key of a JSON record that Read takes the request's time from ("" for a text
	// log, whose lines carry it in their prefix): --map timestamp=KEY copies KEY's value to it,
	// for a log that keeps the time elsewhere (timemap.go).
	Time string
	// Lines says the records are text lines (a server log), not JSON objects.
	Lines bool
	// Sniff reports whether a file's first record is this source's, for --format auto; it
	// must be strict enough not to claim another source's records.
	Sniff func(first []byte) bool
	// Read turns one record into an Entry, or ErrNotModelRequest, or an error naming the
	// field that is wrong (FieldError). year is the year for timestamps logged without one.
	Read func(rec Record) (Entry, error)
	// Join, when set, sees every record of the file before Read does and returns the records
	// to read: a source that logs one request as several records merges them (join.go).
	Join func(recs []Record) []Record
	// Merge folds a Leads or Follows record's Entry into its request's (nil for sources that
	// log a request in one record): a server log's lines of one request, joined by its id as
	// they are read, where Join would hold a whole file of text lines; Finish then checks each
	// request once all its records are in (a vLLM request whose prompt count no line gave is
	// an error), nil for none.
	Merge  func(into *Entry, part Entry)
	Finish func(e *Entry) error
}

// schemas are the sources read, one file each.
var schemas = []Schema{apimSchema, bedrockSchema, envoySchema, heliconeSchema, kongSchema, langfuseSchema, litellmSchema, portkeySchema, sglangSchema, vertexSchema, vllmSchema}

// Schemas lists the sources read, by format name.
func Schemas() []Schema { return slices.Clone(schemas) }
