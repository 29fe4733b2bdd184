package shard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/runfolder"
)

// shard.json round-trips, and is written whole or not at all (no temporary file left).
func TestInfoRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	want := shardInfo(2, 4)
	want.Host = "replay-2-abcde"
	if err := WriteInfo(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !got.StartAt.Equal(want.StartAt) || got.Trace != want.Trace || got.Shard != 2 || got.Shards != 4 || got.Host != want.Host || got.Schedule != want.Schedule {
		t.Fatalf("read %+v, wrote %+v", got, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("folder holds %v, want shard.json alone", entries)
	}
}

// A bad shard.json is refused on writing and on reading, naming the file and the field.
func TestInfoErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadInfo(dir); err == nil || !strings.Contains(err.Error(), dir+": no shard.json") {
		t.Fatalf("no shard.json: %v", err)
	}
	bad := shardInfo(4, 4)
	if err := WriteInfo(dir, bad); err == nil || !strings.Contains(err.Error(), "shard 4 of 4") {
		t.Fatalf("writing shard 4 of 4: %v", err)
	}
	for body, want := range map[string]string{
		`{"shard":0,"shards":2,"trace":{"size":1,"sha256":"` + strings.Repeat("a", 64) + `"}}`:                                   "start_at is missing",
		`{"shard":0,"shards":2,"start_at":"2026-03-01T12:00:00Z","trace":{"size":1,"sha256":"abc"}}`:                             "trace.sha256",
		`{"shard":0,"shards":0,"start_at":"2026-03-01T12:00:00Z","trace":{"size":1,"sha256":"` + strings.Repeat("a", 64) + `"}}`: "shards 0",
		`{"shard":`: "unexpected end",
	} {
		if err := os.WriteFile(filepath.Join(dir, runfolder.Shard), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadInfo(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, runfolder.Shard)) || !strings.Contains(err.Error(), want) {
			t.Errorf("shard.json %s: err %v, want one naming the file and %q", body, err, want)
		}
	}
}

// A trace file's identity is its bytes': the same as IdentityOfBytes over them, whatever the
// file is called; another content is another identity.
func TestTraceIdentity(t *testing.T) {
	body := []byte(strings.Repeat(`{"timestamp":1,"input_length":10,"output_length":5}`+"\n", 5000))
	a, b := filepath.Join(t.TempDir(), "a.jsonl"), filepath.Join(t.TempDir(), "b.jsonl")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ia, err := TraceIdentity(a)
	if err != nil {
		t.Fatal(err)
	}
	ib, err := TraceIdentity(b)
	if err != nil {
		t.Fatal(err)
	}
	mem := IdentityOfBytes("generated", body)
	if !ia.Same(ib) || !ia.Same(mem) || ia.Size != int64(len(body)) || ia.Name != a {
		t.Fatalf("identities %v, %v, %v: want one trace", ia, ib, mem)
	}
	if ia.Same(IdentityOfBytes("generated", append(body, '\n'))) {
		t.Fatal("a longer trace has the same identity")
	}
	if _, err := TraceIdentity(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "none") {
		t.Fatalf("a missing trace: %v", err)
	}
}
