package gatewaylog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"

	"github.com/llm-replay/replay/internal/testenv"
)

// dayRecord is a LiteLLM StandardLoggingPayload (the members litellm.go reads) of a made-up
// request: its start, counts, a key whose requests share cached prefixes, and its call type.
func dayRecord(start float64, id, key string, prompt, cached, output int, callType string, stream bool) []byte {
	rec := map[string]any{
		"id": id, "call_type": callType, "stream": stream, "status": "success",
		"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output,
		"startTime": start, "endTime": start + 1.5, "model": "hosted_vllm/Qwen/Qwen3-8B",
		"model_group": "qwen3-8b", "metadata": map[string]any{"user_api_key_user_id": key},
		"model_parameters": map[string]any{"max_tokens": 512},
		"response": map[string]any{"usage": map[string]any{
			"prompt_tokens": prompt, "completion_tokens": output,
			"prompt_tokens_details": map[string]any{"cached_tokens": cached},
		}},
	}
	b, _ := json.Marshal(rec)
	return b
}

// genDay writes a day of per-minute files under dir (gzip'd, each in one of the delivery
// forms, a few with their records out of order, some with a tool call that is no model
// request), and returns the same records as one uncompressed JSON-lines file's bytes, in
// file-name order and, within a file, in the file's order.
func genDay(t testing.TB, dir string, minutes, perMinute int) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 50))
	const day = 1767225600.0 // 2026-01-01T00:00:00Z
	forms := []string{"lines", "array", "pretty", "pretty-array"}
	var all bytes.Buffer
	for m := range minutes {
		var recs [][]byte
		for i := range perMinute {
			start := day + float64(m*60) + float64(rng.IntN(60_000))/1000
			if rng.IntN(7) == 0 {
				start = day + float64(m*60) + 7 // two requests of one instant, in two files at most
			}
			prompt := 200 + rng.IntN(4000)
			key := fmt.Sprintf("user-%d", rng.IntN(20)) // sessions spanning files
			call := "acompletion"
			if rng.IntN(50) == 0 {
				call = "call_mcp_tool"
			}
			recs = append(recs, dayRecord(start, fmt.Sprintf("r-%d-%d", m, i), key, prompt, rng.IntN(prompt), 1+rng.IntN(500), call, rng.IntN(2) == 0))
		}
		if m%5 == 0 { // records out of order within the file: written as they finished
			recs[0], recs[len(recs)-1] = recs[len(recs)-1], recs[0]
		}
		for _, r := range recs {
			all.Write(r)
			all.WriteByte('\n')
		}
		form := jsonForm(t, recs, forms[m%len(forms)])
		name := filepath.Join(dir, fmt.Sprintf("%02d", m/60), fmt.Sprintf("%04d.json.gz", m))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, testenv.Gzip(t, form), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, notLog := range []string{"README.md", "manifest.json", "_SUCCESS", ".partial.gz"} {
		if err := os.WriteFile(filepath.Join(dir, notLog), []byte("not a log"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return all.Bytes()
}

// TestDayOfMinuteFiles: a day of 1,440 gzip'd per-minute files, in a folder of hour folders,
// reads as the same records in the same order as the day in one uncompressed file: times on
// one clock, requests of one instant by file name, prefixes shared across files as in one
// file, tool calls skipped, what is no log left out.
func TestDayOfMinuteFiles(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(t.TempDir(), "day.jsonl")
	if err := os.WriteFile(whole, genDay(t, dir, 1440, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	want, wantCounts := readLog(t, whole, "litellm")
	got, counts := readLog(t, dir, ingest.FormatAuto)
	sameRecords(t, "the folder", got, want)
	if counts.Records != wantCounts.Records || counts.Skipped != wantCounts.Skipped || counts.CachedUnplaced != wantCounts.CachedUnplaced {
		t.Errorf("counts %+v, want %+v", counts, wantCounts)
	}
	if len(counts.Files) != 1440 || counts.MostFilesOpen > 2 {
		t.Errorf("%d files counted, up to %d open at once; want 1440, at most 2 (bounded memory)", len(counts.Files), counts.MostFilesOpen)
	}
	in, err := ingest.Resolve([]string{dir})
	if err != nil || len(in.Files) != 1440 || len(in.NotLogs) != 4 {
		t.Errorf("resolved %d files, %d not logs (%v), %v; want 1440 and 4", len(in.Files), len(in.NotLogs), in.NotLogs, err)
	}
	// The same files as a glob and as several values read the same.
	glob, _ := readLog(t, filepath.Join(dir, "*", "*.json.gz"), ingest.FormatAuto)
	sameRecords(t, "the glob", glob, want)
}

// TestMixedPresetsFolder: a folder of several sources' logs (each file's format detected on
// its own, compressed or not, lines or pretty) reads as one log, every record of each in
// time order.
func TestMixedPresetsFolder(t *testing.T) {
	dir := t.TempDir()
	var want int64
	for i, fixture := range []string{"litellm.jsonl", "apim-gatewaylogs.jsonl", "bedrock.jsonl", "kong-ai.jsonl"} {
		_, c := readLog(t, filepath.Join("testdata", fixture), ingest.FormatAuto)
		want += c.Records
		form := jsonForm(t, fixtureRecords(t, fixture), []string{"lines", "pretty", "array", "pretty-array"}[i])
		if i%2 == 0 {
			form = testenv.Gzip(t, form)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.log", i)), form, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recs, c := readLog(t, dir, ingest.FormatAuto)
	if c.Records != want || int64(len(recs)) != want || len(c.Files) != 4 {
		t.Fatalf("%d records (%d files), want %d", len(recs), len(c.Files), want)
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].Timestamp < recs[i-1].Timestamp {
			t.Fatalf("record %d at %v before %v", i, recs[i].Timestamp, recs[i-1].Timestamp)
		}
	}
}

// TestSetReadsOnce: a set of gateway logs small enough is read once: the readers of the first
// pass are kept and rewound, so the files may even be gone by the time the merge reaches them.
// Under a quarantine (which the first pass does not write) each file is read again, and the
// records are the same.
func TestSetReadsOnce(t *testing.T) {
	dir := t.TempDir()
	genDay(t, dir, 30, 3)
	want, _ := readLog(t, dir, ingest.FormatAuto)
	r, err := ingest.Open(dir, ingest.Options{OnError: ingest.OnErrorSkip})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	var got []trace.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the kept readers should need no file: %v", err)
		}
		got = append(got, rec)
	}
	r.Close()
	sameRecords(t, "kept readers", got, want)

	dir = t.TempDir()
	genDay(t, dir, 30, 3)
	r, err = ingest.Open(dir, ingest.Options{OnError: ingest.OnErrorSkip, Quarantine: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir)
	if _, err := r.Next(); err == nil {
		t.Error("under a quarantine the files are read again, and they are gone: want an error")
	}
	r.Close()
}
