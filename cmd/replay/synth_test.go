package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// TestSynthCommand synthesizes a generated Mooncake-shaped trace with the sample (Mistral) tokenizer
// for both APIs and checks the contract's fields on every line.
func TestSynthCommand(t *testing.T) {
	trace := genTrace(t)
	for _, api := range []string{"completions", "chat"} {
		out := filepath.Join(t.TempDir(), "p.jsonl")
		code, _, stderr := runCLI(t, "synth", "--trace", trace,
			"--tokenizer", "../../samples/tokenizer/mistral", "--out", out, "--limit", "12",
			"--max-prompt-tokens", "3000", "--api", api, "--seed", "5")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", api, code, stderr)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		n := 0
		for sc.Scan() {
			var line struct {
				Prompt       *string  `json:"prompt"`
				PromptIDs    []int    `json:"prompt_ids"`
				PromptTokens int      `json:"prompt_tokens"`
				MaxTokens    int      `json:"max_tokens"`
				BlockHashes  []uint64 `json:"block_hashes"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			if line.Prompt == nil || *line.Prompt == "" || len(line.PromptIDs) != line.PromptTokens || line.PromptTokens > 3000 || line.MaxTokens < 1 || len(line.BlockHashes) == 0 {
				t.Fatalf("%s line %d: prompt_tokens %d, %d ids, max_tokens %d, %d hashes", api, n+1, line.PromptTokens, len(line.PromptIDs), line.MaxTokens, len(line.BlockHashes))
			}
			if line.PromptIDs[0] != 1 {
				t.Fatalf("%s line %d: does not start with Mistral's BOS", api, n+1)
			}
			n++
		}
		f.Close()
		if n != 12 || !strings.Contains(stderr, "12 requests") {
			t.Fatalf("%s: %d lines; stderr %q", api, n, stderr)
		}
	}
}

// TestSynthCommandErrors: a missing tokenizer or a bad record exits non-zero, names the
// problem and leaves no output file.
func TestSynthCommandErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.jsonl")
	if code, _, stderr := runCLI(t, "synth", "--trace", genTrace(t), "--out", out); code == 0 || !strings.Contains(stderr, "--tokenizer") {
		t.Errorf("without --tokenizer: exit %d, %q", code, stderr)
	}
	bad := testenv.WriteMooncake(t, "bad.jsonl", []testenv.MooncakeRecord{
		{Timestamp: 0, InputLength: 600, OutputLength: 3, HashIDs: []int{1, 2}},
		{Timestamp: 5, InputLength: 1, OutputLength: 3, HashIDs: []int{7}},
	})
	code, _, stderr := runCLI(t, "synth", "--trace", bad, "--format", "mooncake", "--tokenizer", "../../samples/tokenizer/mistral", "--out", out)
	if code == 0 || !strings.Contains(stderr, "bad.jsonl:2") {
		t.Errorf("too-short record: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed synth left its output file")
	}
}

// genTrace writes the default generated workload (Mooncake JSONL, 512-token blocks) with
// `replay gen` and returns its path.
func genTrace(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gen.jsonl")
	if code, _, stderr := runCLI(t, "gen", "--out", p); code != 0 {
		t.Fatalf("replay gen: exit %d: %s", code, stderr)
	}
	return p
}
