package ingest

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
)

// hangAfter is how long drain may take before it counts as hung: the seeds take milliseconds.
const hangAfter = 10 * time.Second

// drain reads a fuzzed file to the end under opts; the only requirement is no panic, no hang,
// and records that pass validation.
func drain(t *testing.T, data []byte, name string, opts Options) {
	defer testenv.PanicAfter(hangAfter, "reading "+name)()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Quarantine = io.Discard
	r, err := Open(p, opts)
	if err != nil {
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
		return
	}
	defer r.Close()
	var prev time.Duration
	for i := 0; ; i++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if rec.PromptTokens < 0 || rec.OutputTokens < 0 || rec.Timestamp < prev || (i == 0 && rec.Timestamp != 0) {
			t.Fatalf("bad record accepted: %+v", rec)
		}
		prev = rec.Timestamp
	}
}

func FuzzMooncake(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [0, 1]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, data, "f.jsonl", Options{Format: FormatMooncake, OnError: OnErrorSkip})
		drain(t, data, "f.jsonl", Options{Format: FormatMooncake, Sort: true, HashCheck: HashCheckWarn})
	})
}

func FuzzJSONL(f *testing.F) {
	f.Add([]byte(`{"ts": "2024-05-01T10:00:00Z", "u": {"p": 12, "c": 3}, "m": "x", "s": 4}` + "\n"))
	m := map[string]string{"timestamp": "ts", "prompt_tokens": "u.p", "output_tokens": "u.c", "model": "m", "session_id": "s", "block_hashes": "h"}
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, data, "f.jsonl", Options{Format: FormatJSONL, Map: m, OnError: OnErrorSkip})
	})
}

// FuzzJSONScanner holds the hand-written scanner to encoding/json: it accepts a line exactly
// when the line is one valid JSON object.
func FuzzJSONScanner(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [0, 1]}`))
	f.Add([]byte(`{"a": {"b": [1, -2.5e3, "x\u00e9", true, false, null, {}]}, "c": ""}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		s := jsonScanner{paths: buildPaths(presets[FormatMooncake].mapping.with(map[string]string{"model": "a.b"}))}
		err := s.scan(line)
		trimmed := strings.TrimLeft(string(line), " \t\r\n")
		valid := json.Valid(line) && strings.HasPrefix(trimmed, "{")
		if (err == nil) != valid {
			t.Fatalf("scanner says %v, encoding/json says valid=%v for %q", err, valid, line)
		}
	})
}

func FuzzCSV(f *testing.F) {
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2024-02-07 09:30:12.4817253,512,38\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, data, "f.csv", Options{Format: FormatAzure, OnError: OnErrorSkip})
		drain(t, data, "f.csv", Options{Format: FormatBurstGPT, OnError: OnErrorSkip})
		drain(t, data, "f.csv", Options{Format: FormatCSV, Map: map[string]string{"timestamp": "TIMESTAMP", "prompt_tokens": "ContextTokens", "output_tokens": "GeneratedTokens", "block_hashes": "h"}, OnError: OnErrorSkip})
	})
}

func FuzzParquet(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, data, "f.parquet", Options{Format: FormatParquet, OnError: OnErrorSkip})
		drain(t, data, "f.parquet", Options{Format: FormatParquet, Map: map[string]string{"timestamp": "timestamp_ns", "prompt_tokens": "prompt_tokens", "output_tokens": "output_tokens", "block_hashes": "block_hashes"}, OnError: OnErrorSkip})
		// Scalars only: the columnar path.
		drain(t, data, "f.parquet", Options{Format: FormatParquet, Map: map[string]string{"timestamp": "timestamp_ns", "prompt_tokens": "prompt_tokens", "output_tokens": "output_tokens", "model": "model", "session_id": "session_id"}, OnError: OnErrorSkip})
	})
}

func FuzzAuto(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, data, "f.trace", Options{OnError: OnErrorSkip})
	})
}

// FuzzParseTime checks the hand-written datetime parser against time.Parse where both apply.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2024-02-07 09:30:12.4817253", "2024-05-01T12:00:01.5+02:00", "1714557600.5", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseTime([]byte(s), 1e9)
		want, werr := time.Parse(time.RFC3339Nano, s)
		if werr == nil && want.Year() >= 1678 && want.Year() < 2262 && strings.Count(s, ".") <= 1 {
			if err != nil {
				t.Fatalf("parseTime(%q): %v, time.Parse accepts it", s, err)
			}
			if got != want.UnixNano() {
				t.Fatalf("parseTime(%q) = %d, time.Parse says %d", s, got, want.UnixNano())
			}
		}
	})
}
