package ingest

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// detectPeek is how much of a file auto-detection looks at.
const detectPeek = 64 << 10

// Detect names the format of a trace from its first bytes: Parquet by its magic number, JSON
// lines by a leading '{' (Mooncake when the first object has input_length, openai-log when it
// has request and response), and CSV by a header line (Azure and BurstGPT by their columns).
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
	if f := sniffed(first); f != "" {
		return f, nil
	}
	if trimmed[0] == '{' {
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
