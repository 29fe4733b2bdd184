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
		{PromptTokens: 800, OutputTokens: 3, Source: "log.jsonl", Line: 3, Options: &Options{API: APIChat}, Media: []MediaPart{
			{Kind: MediaKindAudio, MIME: "audio/wav", SampleRate: 16000, Channels: 1, Bits: 16, Samples: 64321, Hash: 9, Message: 0, Part: 0, Parts: 2, Tokens: 103},
			{Kind: MediaKindAudio, MIME: "audio/mpeg", SampleRate: 44100, Channels: 2, Samples: 113624, Hash: 10, Message: 0, Part: 1, Parts: 2, Tokens: 66},
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

// TestDecodeMediaAudio reads a clip back as SCHEMA.md's example writes it.
func TestDecodeMediaAudio(t *testing.T) {
	text := `[{"kind":"audio","mime":"audio/mpeg","sample_rate":44100,"channels":2,"samples":113624,"hash":77,"message":1,"part":0,"parts":2,"tokens":73}]`
	got, err := DecodeMedia([]byte(text))
	want := []MediaPart{{Kind: MediaKindAudio, MIME: "audio/mpeg", SampleRate: 44100, Channels: 2, Samples: 113624, Hash: 77, Message: 1, Part: 0, Parts: 2, Tokens: 73}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v, %v", got, err)
	}
	if b, _ := EncodeMedia(want); string(b) != text {
		t.Errorf("encoded as %s", b)
	}
}

func TestDecodeMediaRefuses(t *testing.T) {
	for _, text := range []string{
		`[{"kind":"audio","mime":"audio/wav","width":1,"height":1,"hash":1,"message":0,"part":0,"parts":1,"tokens":1}]`,
		`[{"kind":"audio","mime":"audio/wav","sample_rate":16000,"channels":1,"samples":0,"hash":1,"message":0,"part":0,"parts":1,"tokens":1}]`,
		`[{"kind":"audio","mime":"audio/ogg","sample_rate":16000,"channels":1,"samples":5,"hash":1,"message":0,"part":0,"parts":1,"tokens":1}]`,
		`[{"kind":"image","mime":"image/png","width":3,"height":1,"sample_rate":16000,"hash":1,"message":0,"part":0,"parts":1,"tokens":1}]`,
		`[{"kind":"video","mime":"video/mp4","width":1,"height":1,"hash":1,"message":0,"part":0,"parts":1,"tokens":1}]`,
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
