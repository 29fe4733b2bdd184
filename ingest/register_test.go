package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRegister: Open hands a registered format's files, explicit or detected, to its reader
// with the format resolved and the mapping unchecked (the reader's fields are its own), and
// Register refuses what it must not take.
func TestRegister(t *testing.T) {
	var got []Options
	open := func(path string, opts Options) (Reader, error) {
		got = append(got, opts)
		return nil, os.ErrInvalid
	}
	Register(FormatOpenAILog, open)
	t.Cleanup(func() { delete(openers, FormatOpenAILog) })
	log := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(log, []byte(`{"timestamp":0,"request":{},"response":{}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"", FormatOpenAILog} {
		opts := Options{Format: format, Map: map[string]string{"request": "body"}, Tokenizer: "tok"}
		if _, err := Open(log, opts); err != os.ErrInvalid {
			t.Fatalf("format %q: %v", format, err)
		}
	}
	for _, o := range got {
		if o.Format != FormatOpenAILog || o.Map["request"] != "body" || o.Tokenizer != "tok" || o.OnError != OnErrorFail {
			t.Errorf("the registered reader got %+v", o)
		}
	}
	if f, err := FileFormat(log, FormatAuto); f != FormatOpenAILog || err != nil {
		t.Errorf("FileFormat: %q, %v", f, err)
	}
	Register("test-log", open)
	if !slices.Contains(Formats, "test-log") {
		t.Errorf("a registered format is not in Formats: %v", Formats)
	}
	for _, format := range []string{FormatOpenAILog, FormatMooncake, FormatAuto, "test-log"} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), format) {
					t.Errorf("Register(%q): panic %v", format, p)
				}
			}()
			Register(format, open)
		}()
	}
}
