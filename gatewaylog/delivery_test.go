package gatewaylog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"

	"github.com/llm-replay/replay/internal/testenv"
)

// A log is the same log however it is delivered: JSON lines, one JSON array, pretty-printed
// documents (one after another, or in an array), gzip'd or zstd'd. The forms are made here
// from each fixture's lines (no copies are committed).

// deliveryForms are a JSON log's records (one compact JSON object each) in every form.
func deliveryForms(t testing.TB, recs [][]byte) map[string][]byte {
	t.Helper()
	lines, array := jsonForm(t, recs, "lines"), jsonForm(t, recs, "array")
	pretty := jsonForm(t, recs, "pretty")
	return map[string][]byte{
		"lines": lines, "array": array, "pretty": pretty,
		"pretty-array": jsonForm(t, recs, "pretty-array"), "lines.gz": testenv.Gzip(t, lines),
		"lines.zst": testenv.Zstd(t, lines), "pretty.gz": testenv.Gzip(t, pretty), "array.zst": testenv.Zstd(t, array),
	}
}

// jsonForm is recs as JSON lines, one compact array, pretty-printed documents one after
// another, or one pretty-printed array.
func jsonForm(t testing.TB, recs [][]byte, form string) []byte {
	t.Helper()
	var b bytes.Buffer
	open, sep, end := "", "\n", "\n"
	indent := ""
	switch form {
	case "array":
		open, sep, end = "[", ",", "]\n"
	case "pretty":
		indent = "  "
	case "pretty-array":
		open, sep, end, indent = "[\n  ", ",\n  ", "\n]\n", "  "
	}
	b.WriteString(open)
	for i, rec := range recs {
		if i > 0 {
			b.WriteString(sep)
		}
		if indent == "" {
			b.Write(rec)
			continue
		}
		prefix := ""
		if form == "pretty-array" {
			prefix = "  "
		}
		if err := json.Indent(&b, rec, prefix, indent); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	b.WriteString(end)
	return b.Bytes()
}

// fixtureRecords are a JSON fixture's records, compacted.
func fixtureRecords(t testing.TB, name string) [][]byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, line); err != nil {
			t.Fatalf("%s: a line that is no JSON: %v", name, err)
		}
		recs = append(recs, c.Bytes())
	}
	return recs
}

// readLog reads path as ingest.Open does, with bad records skipped and counted.
func readLog(t testing.TB, path, format string) ([]trace.Record, ingest.Counts) {
	t.Helper()
	r, err := ingest.Open(path, ingest.Options{Format: format, OnError: ingest.OnErrorSkip})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	var out []trace.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r.Counts()
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, rec)
	}
}

// sameRecords compares two readings, but for where each record was (file and line).
func sameRecords(t testing.TB, what string, got, want []trace.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		g.Source, g.Line, w.Source, w.Line = "", 0, "", 0
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: record %d\n got %+v\nwant %+v", what, i, g, w)
		}
	}
}

// TestDeliveryForms reads each JSON fixture in every delivery form, with its format named and
// detected, and wants the records and counts of its JSON lines.
func TestDeliveryForms(t *testing.T) {
	fixtures := map[string]string{
		"apim.jsonl": "apim", "bedrock.jsonl": "bedrock", "envoy-ai-gateway.jsonl": "envoy-ai-gateway",
		"helicone.jsonl": "helicone", "kong-ai.jsonl": "kong-ai", "langfuse.jsonl": "langfuse",
		"litellm.jsonl": "litellm", "litellm-spendlogs.jsonl": "litellm", "portkey.jsonl": "portkey",
		"vertex.jsonl": "vertex", "sglang-log.jsonl": "sglang-log", "apim-gatewaylogs.jsonl": "apim",
	}
	for fixture, format := range fixtures {
		t.Run(fixture, func(t *testing.T) {
			dir := t.TempDir()
			want, wantCounts := readLog(t, filepath.Join("testdata", fixture), format)
			if len(want) == 0 {
				t.Fatal("the fixture gave no record")
			}
			for form, b := range deliveryForms(t, fixtureRecords(t, fixture)) {
				path := filepath.Join(dir, form)
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				if format == "sglang-log" && !strings.HasPrefix(form, "lines") {
					continue // SGLang's JSON log is read a line at a time, as the server writes it
				}
				for _, f := range []string{format, ingest.FormatAuto} {
					got, counts := readLog(t, path, f)
					sameRecords(t, form+" as "+f, got, want)
					if counts.Records != wantCounts.Records || counts.Rejected != wantCounts.Rejected || counts.Skipped != wantCounts.Skipped {
						t.Errorf("%s as %s: counts %+v, want %+v", form, f, counts, wantCounts)
					}
				}
			}
		})
	}
}
