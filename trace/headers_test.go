package trace

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestHeadersRoundTrip: a record's headers survive the normalized file; a credential is
// refused by the writer and dropped if a file holds one; records without keep none.
func TestHeadersRoundTrip(t *testing.T) {
	recs := []Record{
		{Source: "a", Line: 1, Headers: []Header{{"priority", "high"}, {"x-session-id", "s 1"}}},
		{Source: "a", Line: 2},
		{Source: "a", Line: 3, Headers: []Header{{"x-llm-d-objective", "batch"}}},
	}
	p := filepath.Join(t.TempDir(), "h.parquet")
	w, err := CreateFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Write(Record{Headers: []Header{{"Authorization", "Bearer k"}}}); err == nil || !strings.Contains(err.Error(), "credential") {
		t.Errorf("a credential written: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Fatalf("got %+v\nwant %+v", got, recs)
	}
	h, err := DecodeHeaders([]byte(`[["Cookie","c"],["X-Tier","gold"]]`))
	if err != nil || len(h) != 1 || h[0] != (Header{"x-tier", "gold"}) {
		t.Errorf("decoded %+v %v", h, err)
	}
	if _, err := DecodeHeaders([]byte(`{"a":1}`)); err == nil {
		t.Error("a malformed column decoded")
	}
}
