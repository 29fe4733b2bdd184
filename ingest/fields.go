package ingest

// Record fields a mapping can fill. timestamp, prompt_tokens and output_tokens are required in
// every row; the others are optional (a row may lack them, or the mapping may not name them).
const (
	fTimestamp = iota
	fPrompt
	fOutput
	fHashes
	fSession
	fTurn
	fModel
	fOptions
	fCached
	numFields
)

// Fields are the names --map accepts on its left side, indexed by the f* constants.
// options is a request's own options as JSON (trace.Options; the Mooncake export of a request
// log carries them, and reading that file back gives them to the replay).
// cached_tokens is the prompt tokens the log says were read from the prefix cache: a log
// that has them and no block hashes gets hashes sharing them (cachedprefix.go).
var Fields = [numFields]string{"timestamp", "prompt_tokens", "output_tokens", "block_hashes", "session_id", "turn", "model", "options", "cached_tokens"}

// requiredField says whether a row without the field is bad.
var requiredField = [numFields]bool{true, true, true, false, false, false, false, false, false}

func fieldIndex(name string) int {
	for i, f := range Fields {
		if f == name {
			return i
		}
	}
	return -1
}

// mapping is the column (or dotted JSON path) each field comes from; "" means not mapped.
type mapping [numFields]string

// with overrides a preset with the user's --map.
func (m mapping) with(user map[string]string) mapping {
	for k, v := range user {
		if i := fieldIndex(k); i >= 0 {
			m[i] = v
		}
	}
	return m
}

// describe names a field and, when it differs, its source column, for error messages.
func (m mapping) describe(f int) string {
	if m[f] == "" || m[f] == Fields[f] {
		return Fields[f]
	}
	return m[f]
}
