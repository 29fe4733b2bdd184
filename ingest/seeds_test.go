package ingest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/trace"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the fuzz seed corpora under testdata/fuzz from testdata")

// TestFuzzSeeds checks that every fuzz target has a seed corpus in testdata/fuzz (so plain
// `go test` runs the targets over real inputs); with -update-seeds it writes them.
func TestFuzzSeeds(t *testing.T) {
	files := func(names ...string) [][]byte {
		var out [][]byte
		for _, n := range names {
			b, err := os.ReadFile(td(n))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	jsonl := files("mooncake_small.jsonl", "truncated.jsonl", "wrong_type.jsonl", "negative.jsonl", "hash_mismatch.jsonl", "out_of_order.jsonl", "bom_crlf.jsonl", "gateway.jsonl", "empty.jsonl")
	csv := files("azure_small.csv", "azure_bom_crlf.csv", "azure_bad_time.csv", "burstgpt_small.csv", "generic.csv")
	var lines [][]byte
	for _, f := range jsonl {
		lines = append(lines, bytes.Split(f, []byte("\n"))...)
	}
	recs, _, err := ReadAll(td("mooncake_small.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pq bytes.Buffer
	w := trace.NewWriter(&pq)
	for _, r := range recs {
		w.Write(r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pqb := pq.Bytes()
	parquets := [][]byte{pqb, pqb[:len(pqb)-10], pqb[:len(pqb)/2]}
	seeds := map[string][][]byte{
		"FuzzMooncake":    jsonl,
		"FuzzJSONL":       jsonl,
		"FuzzJSONScanner": lines,
		"FuzzCSV":         csv,
		"FuzzParquet":     parquets,
		"FuzzAuto":        append(append(append([][]byte{}, jsonl...), csv...), parquets...),
	}
	for target, inputs := range seeds {
		dir := filepath.Join("testdata", "fuzz", target)
		if !*updateSeeds {
			ents, err := os.ReadDir(dir)
			if err != nil || len(ents) == 0 {
				t.Errorf("%s has no seed corpus in %s (run go test -run TestFuzzSeeds -update-seeds)", target, dir)
			}
			continue
		}
		os.MkdirAll(dir, 0o755)
		for i, in := range inputs {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", in)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if *updateSeeds {
		dir := filepath.Join("testdata", "fuzz", "FuzzParseTime")
		os.MkdirAll(dir, 0o755)
		for i, s := range []string{"2024-02-07 09:30:12.4817253", "2024-05-01T12:00:01.5+02:00", "2024-05-01T12:00:01-0130", "1714557600.5", "-1.5e-3", "2023-02-29 00:00:00"} {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(fmt.Sprintf("go test fuzz v1\nstring(%q)\n", s)), 0o644)
		}
	}
}
