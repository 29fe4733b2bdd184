package trace

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestMediaRoundTrip writes records with and without media parts to Parquet and Arrow and
// reads them back equal.
func TestMediaRoundTrip(t *testing.T) {
	recs := []Record{
		{PromptTokens: 900, OutputTokens: 3, Source: "log.jsonl", Line: 1, Options: &Options{API: APIChat}, Media: []MediaPart{
			{Kind: MediaKindImage, MIME: "image/png", Width: 1300, Height: 876, Detail: "high", Hash: 1 << 63, Message: 1, Part: 1, Parts: 3, Tokens: 858},
			{Kind: MediaKindImage, MIME: "image/jpeg", Width: 640, Height: 480, Hash: 7, Message: 1, Part: 2, Parts: 3, Tokens: 100, URL: true},
		}},
		{PromptTokens: 12, OutputTokens: 3, Source: "log.jsonl", Line: 2},
	}
	dir := t.TempDir()
	pq, arrowPath := filepath.Join(dir, "t.parquet"), filepath.Join(dir, "t.arrow")
	w, err := CreateFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	aw, err := CreateArrowFile(arrowPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		if err := aw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(pq)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("parquet: read back %+v\nwant %+v", got, recs)
	}
	if got, err = ReadArrowFile(arrowPath); err != nil || !reflect.DeepEqual(got, recs) {
		t.Errorf("arrow: read back %+v, %v\nwant %+v", got, err, recs)
	}
}

func TestDecodeMediaRefuses(t *testing.T) {
	for _, text := range []string{
		`[{"kind":"audio","mime":"audio/wav","width":1,"height":1,"hash":1,"message":0,"part":0,"parts":1,"tokens":1}]`,
		`[{"kind":"image","mime":"image/png","width":0,"height":1,"hash":1,"message":0,"part":0,"parts":1,"tokens":1}]`,
		`[{"kind":"image","mime":"image/png","width":1,"height":1,"hash":1,"message":0,"part":1,"parts":1,"tokens":1}]`,
		`[{"kind":"image","pixels":"AAAA"}]`,
		`{`,
	} {
		if _, err := DecodeMedia([]byte(text)); err == nil {
			t.Errorf("%s: accepted", strings.TrimSpace(text))
		}
	}
}
