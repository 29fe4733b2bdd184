package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// detectPeek is how much of a file auto-detection looks at.
const detectPeek = 64 << 10

// Detect names the format of a trace from its first bytes (decompressed: see OpenFile): Parquet
// by its magic number; a registered format by its first record (a line, or the first of
// pretty-printed JSON documents or of a JSON array, put on one line); JSON lines by a leading
// '{' (Mooncake when the first object has input_length, openai-log when it has request and
// response); and CSV by a header line (Azure and BurstGPT by their columns).
func Detect(prefix []byte) (string, error) {
	prefix = bytes.TrimPrefix(prefix, utf8BOM)
	if bytes.HasPrefix(prefix, []byte("PAR1")) {
		return FormatParquet, nil
	}
	trimmed := bytes.TrimLeft(prefix, " \t\r\n")
	if len(trimmed) == 0 {
		return "", ErrEmpty
	}
	first := trimmed
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	first = bytes.TrimRight(first, "\r")
	isJSON := trimmed[0] == '{'
	if trimmed[0] == '{' || trimmed[0] == '[' {
		if rec, ok := firstDocument(trimmed); ok {
			first, isJSON = rec, true
		}
	}
	if f := sniffed(first); f != "" {
		return f, nil
	}
	if isJSON {
		has := func(k string) bool { return bytes.Contains(first, []byte(`"`+k+`"`)) }
		switch {
		case has("input_length") && has("output_length"):
			return FormatMooncake, nil
		case has("request") && has("response"):
			return FormatOpenAILog, nil
		}
		return FormatJSONL, nil
	}
	if !utf8.Valid(first) || bytes.IndexByte(first, 0) >= 0 || bytes.IndexByte(first, ',') < 0 {
		return "", errors.New("cannot detect the format (not Parquet, JSON lines or a CSV header); pass --format")
	}
	has := func(k string) bool { return bytes.Contains(first, []byte(k)) }
	switch {
	case has("TIMESTAMP") && has("ContextTokens") && has("GeneratedTokens"):
		return FormatAzure, nil
	case has("Request tokens") && has("Response tokens"):
		return FormatBurstGPT, nil
	}
	return FormatCSV, nil
}

// firstDocument is the first record of JSON documents, compacted onto one line as a sniffer
// expects it: the first element of a top-level array, or the first value of a stream of
// values, pretty-printed or not. ok is false when the prefix does not hold one whole.
func firstDocument(trimmed []byte) ([]byte, bool) {
	d := json.NewDecoder(bytes.NewReader(trimmed))
	if trimmed[0] == '[' {
		if _, err := d.Token(); err != nil || !d.More() {
			return nil, false
		}
	}
	var raw json.RawMessage
	if err := d.Decode(&raw); err != nil || len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var line bytes.Buffer
	if err := json.Compact(&line, raw); err != nil {
		return nil, false
	}
	return line.Bytes(), true
}
