package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/shard"
)

// writeShardDir writes a shard's folder as a sharded run leaves it: shard.json, rows (ids
// from, from+1, ...) and summary.json, for trace content trace.
func writeShardDir(t *testing.T, dir string, k, n, from, rows int, trace string) {
	t.Helper()
	info := shard.Info{Shard: k, Shards: n, StartAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Trace: shard.IdentityOfBytes("trace.jsonl", []byte(trace)), Version: "test"}
	if err := shard.WriteInfo(dir, info); err != nil {
		t.Fatal(err)
	}
	w, err := rowfile.NewWriter(filepath.Join(dir, runfolder.Requests))
	if err != nil {
		t.Fatal(err)
	}
	m := analysis.NewMetrics(analysis.Options{})
	for i := from; i < from+rows; i++ {
		at := int64(i) * int64(10*time.Millisecond)
		r := results.Row{RequestID: fmt.Sprint(i), ScheduledNS: at, SentNS: at + 1000, FirstTokenNS: at + 5e6,
			LastTokenNS: at + 9e6, DoneNS: at + 9e6, ChunkNS: []int64{at + 5e6, at + 9e6}, TargetPromptTokens: 10,
			TargetOutputTokens: 2, PromptTokens: 10, CompletionTokens: 2, HTTPStatus: 200, Endpoint: "sim"}
		m.Add(&r)
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := report.WriteRunFiles(dir, m, analysis.RunInfo{Speed: 1, Stop: "completed"}); err != nil {
		t.Fatal(err)
	}
}

func TestMergeCommand(t *testing.T) {
	root := t.TempDir()
	a, b, out := filepath.Join(root, "shard-0"), filepath.Join(root, "shard-1"), filepath.Join(root, "merged")
	writeShardDir(t, a, 0, 2, 0, 30, "t")
	writeShardDir(t, b, 1, 2, 30, 20, "t")
	code, stdout, stderr := runCLI(t, "merge", "--out", out, a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"combined schedule of 2 shards: 50 requests sent, 0 never sent", "verdict: valid", "wrote 50 rows of 2 shards"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "ttft") {
		t.Errorf("stdout has no summary table:\n%s", stdout)
	}
	for _, f := range []string{runfolder.Requests, runfolder.Shards, runfolder.Summary, runfolder.Report} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestMergeCommandBadInput(t *testing.T) {
	root := t.TempDir()
	a, b, other := filepath.Join(root, "shard-0"), filepath.Join(root, "shard-1"), filepath.Join(root, "other-1")
	writeShardDir(t, a, 0, 2, 0, 5, "t")
	writeShardDir(t, b, 1, 2, 5, 5, "t")
	writeShardDir(t, other, 1, 2, 5, 5, "another trace")
	out := filepath.Join(root, "merged")
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"no --out":         {[]string{a, b}, "--out DIR is required"},
		"no folders":       {[]string{"--out", out}, "want the shard folders"},
		"not a shard":      {[]string{"--out", out, a, root}, root + ": no shard.json"},
		"different traces": {[]string{"--out", out, a, other}, "shards of different traces are not one run, merge refused"},
		"shard twice":      {[]string{"--out", out, a, b, b}, "are both shard 1 of 2"},
	} {
		code, _, stderr := runCLI(t, append([]string{"merge"}, c.args...)...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q: want 1 and %q", name, code, stderr, c.want)
		}
	}
}

func TestMergeCommandHelp(t *testing.T) {
	code, _, stderr := runCLI(t, "merge", "--help")
	if code != 0 || !strings.Contains(stderr, "replay merge --out merged /results/shard-*") || !strings.Contains(stderr, "Exit codes:") {
		t.Fatalf("exit %d, help:\n%s", code, stderr)
	}
}
