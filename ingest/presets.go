package ingest

// preset is what a named format implies: the reader, the default mapping, time unit and block size.
type preset struct {
	kind      string // "jsonl", "csv" or "parquet": the reader that parses it
	mapping   mapping
	timeUnit  string
	blockSize int
}

// The public traces' own column names (Mooncake JSONL; the Azure 2023 and BurstGPT CSVs).
var presets = map[string]preset{
	// session_id and turn are not in the Mooncake release; `replay gen` writes them on the
	// turns of multi-turn sessions, and the export of a request log adds options. Optional
	// fields: files without them read as before.
	FormatMooncake: {kind: "jsonl", timeUnit: "ms", blockSize: 512, mapping: mapping{
		fTimestamp: "timestamp", fPrompt: "input_length", fOutput: "output_length", fHashes: "hash_ids",
		fSession: "session_id", fTurn: "turn", fOptions: "options",
	}},
	FormatAzure: {kind: "csv", timeUnit: "s", mapping: mapping{
		fTimestamp: "TIMESTAMP", fPrompt: "ContextTokens", fOutput: "GeneratedTokens",
	}},
	FormatBurstGPT: {kind: "csv", timeUnit: "s", mapping: mapping{
		fTimestamp: "Timestamp", fPrompt: "Request tokens", fOutput: "Response tokens", fModel: "Model",
	}},
	// Generic formats default to the normalized field names themselves.
	FormatJSONL:   {kind: "jsonl", timeUnit: "s", mapping: Fields},
	FormatCSV:     {kind: "csv", timeUnit: "s", mapping: Fields},
	FormatParquet: {kind: "parquet", timeUnit: "s", mapping: Fields},
}
