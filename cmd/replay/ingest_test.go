package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/trace"
)

const ingestTestdata = "../../ingest/testdata/"

func TestIngestCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.parquet")
	code, stdout, stderr := runCLI(t, "ingest", "--trace", ingestTestdata+"mooncake_small.jsonl", "--out", out)
	if code != 0 || stdout != `{"records":3,"rejected":0}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	recs, err := trace.ReadAll(out)
	if err != nil || len(recs) != 3 || recs[2].PromptTokens != 1025 {
		t.Fatalf("%+v %v", recs, err)
	}
	arrow := filepath.Join(t.TempDir(), "t.arrow")
	if code, _, stderr := runCLI(t, "ingest", "--trace", ingestTestdata+"azure_small.csv", "--out", arrow); code != 0 {
		t.Fatalf("arrow: exit %d: %s", code, stderr)
	}
	if recs, err := trace.ReadArrowFile(arrow); err != nil || len(recs) != 3 {
		t.Fatalf("arrow: %d records, %v", len(recs), err)
	}
}

// TestIngestCommandErrors: bad input exits non-zero with one line naming file, line and field,
// and leaves no output file behind.
func TestIngestCommandErrors(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--trace", ingestTestdata + "negative.jsonl"}, []string{"negative.jsonl:3:", `field "input_length": negative value -3`}},
		{[]string{"--trace", ingestTestdata + "truncated.jsonl"}, []string{"truncated.jsonl:2:", "truncated JSON"}},
		{[]string{"--trace", ingestTestdata + "mooncake_small.jsonl", "--format", "azure"}, []string{"mooncake_small.jsonl:1:", "looks like --format mooncake"}},
		{[]string{"--trace", ingestTestdata + "empty.jsonl"}, []string{"empty.jsonl", "empty trace"}},
		{[]string{"--trace", ingestTestdata + "azure_small.csv", "--map", "prompt_tokens=Nope"}, []string{"azure_small.csv:1:", `column "Nope"`}},
		{[]string{"--trace", ingestTestdata + "mooncake_small.jsonl", "--format", "xml"}, []string{`unknown format "xml"`}},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "t.parquet")
		code, stdout, stderr := runCLI(t, append(append([]string{"ingest"}, c.args...), "--out", out)...)
		if code == 0 {
			t.Errorf("%v: exit 0", c.args)
		}
		if stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: stdout %q, stderr %q (want one line)", c.args, stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: left %s behind", c.args, out)
		}
	}
}

func TestIngestCommandSkip(t *testing.T) {
	dir := t.TempDir()
	q := filepath.Join(dir, "bad.jsonl")
	code, stdout, stderr := runCLI(t, "ingest", "--trace", ingestTestdata+"negative.jsonl", "--on-error", "skip", "--quarantine", q, "--out", filepath.Join(dir, "t.parquet"))
	if code != 0 || stdout != `{"records":3,"rejected":1}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	raw, _ := os.ReadFile(q)
	if string(raw) != `{"timestamp": 25, "input_length": -3, "output_length": 1, "hash_ids": []}`+"\n" {
		t.Errorf("quarantine %q", raw)
	}
	if !strings.Contains(stderr, "negative.jsonl:3:") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestIngestStatsMooncake(t *testing.T) {
	p := testenv.SharedTrace(t, "mooncake_synthetic.jsonl")
	code, stdout, stderr := runCLI(t, "ingest", "--trace", p, "--stats")
	if code != 0 || !strings.Contains(stdout, "ideal block hit rate 64.0%") || !strings.HasPrefix(stdout, `{"records":3993,"rejected":0}`+"\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "ingest", "--trace", p, "--stats", "--json")
	var got struct {
		Records int
		Stats   struct {
			IdealHitRate float64 `json:"ideal_block_hit_rate"`
			SpanS        float64 `json:"span_s"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != 0 || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("json stats %q: %v", stdout, err)
	}
	if got.Records != 3993 || got.Stats.IdealHitRate < 0.6395 || got.Stats.IdealHitRate >= 0.6405 || got.Stats.SpanS < 1021.5 || got.Stats.SpanS > 1022.5 {
		t.Errorf("stats %+v", got)
	}
}

func TestCacheSimCommand(t *testing.T) {
	p := testenv.SharedTrace(t, "mooncake_synthetic.jsonl")
	code, stdout, stderr := runCLI(t, "cache-sim", "--trace", p)
	if code != 0 || stdout != "hit rate 64.0%\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A finite cache can only do worse, and a bigger one no worse than a smaller one.
	rate := func(n string) float64 {
		_, out, _ := runCLI(t, "cache-sim", "--trace", p, "--capacity-blocks", n)
		var pct float64
		if _, err := fmt.Sscanf(out, "hit rate %f%%", &pct); err != nil {
			t.Fatalf("LRU %s: %q: %v", n, out, err)
		}
		return pct
	}
	small, big := rate("1000"), rate("100000")
	if !(small < big && big <= 64.0 && small > 0) {
		t.Errorf("LRU 1000: %.1f%%, LRU 100000: %.1f%%", small, big)
	}
	if code, _, stderr := runCLI(t, "cache-sim", "--trace", testenv.SharedTrace(t, "azure2023_conv.csv")); code == 0 || !strings.Contains(stderr, "no block hashes") {
		t.Errorf("azure: exit %d, %q", code, stderr)
	}
}

func TestIngestCommandFlags(t *testing.T) {
	dir := t.TempDir()
	// --sort accepts an out-of-order trace and says so; without it the same trace fails.
	out := filepath.Join(dir, "sorted.parquet")
	code, stdout, stderr := runCLI(t, "ingest", "--trace", ingestTestdata+"out_of_order.jsonl", "--sort", "--out", out)
	if code != 0 || stdout != `{"records":4,"rejected":0}`+"\n" || !strings.Contains(stderr, "sorted") {
		t.Fatalf("--sort: exit %d, %q, %q", code, stdout, stderr)
	}
	if code, _, _ := runCLI(t, "ingest", "--trace", ingestTestdata+"out_of_order.jsonl", "--out", out); code == 0 {
		t.Error("out-of-order trace accepted without --sort")
	}
	// --quarantine alone implies --on-error skip; with an explicit fail it is refused.
	q := filepath.Join(dir, "q.csv")
	code, stdout, _ = runCLI(t, "ingest", "--trace", ingestTestdata+"azure_bad_time.csv", "--quarantine", q, "--out", out)
	if raw, _ := os.ReadFile(q); code != 0 || stdout != `{"records":2,"rejected":1}`+"\n" || string(raw) != "2024-02-07 25:30:17.0360914,1287,206\n" {
		t.Errorf("--quarantine: exit %d, %q, quarantine %q", code, stdout, raw)
	}
	if code, _, stderr := runCLI(t, "ingest", "--trace", ingestTestdata+"azure_bad_time.csv", "--quarantine", q, "--on-error", "fail", "--out", out); code == 0 || !strings.Contains(stderr, "--quarantine needs --on-error skip") {
		t.Errorf("--quarantine with fail: exit %d, %q", code, stderr)
	}
	// --arrow beside --out writes both; --time-unit scales numeric timestamps.
	pq, ar := filepath.Join(dir, "g.parquet"), filepath.Join(dir, "g.arrow")
	code, _, stderr = runCLI(t, "ingest", "--trace", ingestTestdata+"generic.csv", "--map", "timestamp=when,prompt_tokens=in,output_tokens=out", "--time-unit", "ms", "--out", pq, "--arrow", ar)
	if code != 0 {
		t.Fatalf("generic csv: exit %d: %s", code, stderr)
	}
	a, err1 := trace.ReadAll(pq)
	b, err2 := trace.ReadArrowFile(ar)
	if err1 != nil || err2 != nil || len(a) != 2 || len(b) != 2 || a[1].Timestamp.Microseconds() != 750 || !reflect.DeepEqual(a, b) {
		t.Errorf("generic csv: %+v %v / %+v %v", a, err1, b, err2)
	}
	if code, _, stderr := runCLI(t, "ingest", "--trace", ingestTestdata+"generic.csv", "--time-unit", "h", "--out", pq); code == 0 || !strings.Contains(stderr, `unknown time unit "h"`) {
		t.Errorf("bad --time-unit: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "ingest", "--trace", ingestTestdata+"generic.csv"); code == 0 || !strings.Contains(stderr, "nothing to do") {
		t.Errorf("no output: exit %d, %q", code, stderr)
	}
}
