package gatewaylog

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/trace"
)

// TestGatewayImages reads the images of logged bodies: Bedrock's Converse image blocks and an
// Anthropic messages body on InvokeModel, Gemini's inlineData (camelCase and protobuf names)
// on Vertex; each with its format and size from the header, its place, a hash equal for equal
// bytes, and tokens by the logged model's documented rule (Gemini's logged IMAGE tokens shared
// among its images). A mime contradicting the magic, cut bytes and bad base64 are rejected,
// named by line and field.
func TestGatewayImages(t *testing.T) {
	img := func(mime string, w, h, msg, part, parts, tokens int) trace.MediaPart {
		return trace.MediaPart{Kind: trace.MediaKindImage, MIME: mime, Width: w, Height: h, Message: msg, Part: part, Parts: parts, Tokens: tokens}
	}
	for _, c := range []struct {
		file, format string
		want         [][]trace.MediaPart
		errs         []string
	}{
		{"bedrock-images.jsonl", "bedrock", [][]trace.MediaPart{
			{img(media.PNG, 400, 300, 0, 1, 3, 160), img(media.GIF, 3000, 100, 0, 2, 3, 109)},
			{img(media.PNG, 400, 300, 0, 0, 2, 160)},
		}, []string{":3: ", "declared image/jpeg, but the data is image/png", ":4: ", "header"}},
		{"vertex-images.jsonl", "vertex", [][]trace.MediaPart{
			{img(media.PNG, 400, 300, 0, 0, 3, 258), img(media.PNG, 20, 20, 0, 2, 3, 258)},
			{img(media.GIF, 3000, 100, 0, 1, 2, 4*258)},
		}, []string{":3: ", "inlineData.data", "base64"}},
	} {
		recs, counts, err := ingest.ReadAll(filepath.Join("testdata", c.file), ingest.Options{Format: c.format, OnError: ingest.OnErrorSkip})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(recs) != len(c.want) || counts.Rejected != int64(len(c.errs)/2) {
			t.Fatalf("%s: %d records, %d rejected (%v)", c.file, len(recs), counts.Rejected, counts.Errors)
		}
		var hashes []uint64
		for i, r := range recs {
			if len(r.Media) != len(c.want[i]) {
				t.Fatalf("%s record %d: %+v, want %+v", c.file, i, r.Media, c.want[i])
			}
			for k, m := range r.Media {
				hashes = append(hashes, m.Hash)
				m.Hash = 0
				if m != c.want[i][k] {
					t.Errorf("%s record %d image %d: %+v, want %+v", c.file, i, k, m, c.want[i][k])
				}
			}
			if r.MediaTokens() >= r.PromptTokens {
				t.Errorf("%s record %d: images %d of %d prompt tokens", c.file, i, r.MediaTokens(), r.PromptTokens)
			}
		}
		if c.format == "bedrock" && (hashes[0] != hashes[2] || hashes[0] == hashes[1]) {
			t.Errorf("bedrock hashes %x: want the same PNG's equal, the GIF's apart", hashes)
		}
		msgs := ""
		for _, e := range counts.Errors {
			msgs += e + "\n"
		}
		for _, want := range c.errs {
			if !strings.Contains(msgs, want) {
				t.Errorf("%s: errors %q do not say %q", c.file, msgs, want)
			}
		}
	}
}
