package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
)

// TestFormatHelp: `--format help` lists every format with what it reads, cites no source file,
// and each example it shows is input its format reads: `replay ingest` of the example alone
// gives one record.
func TestFormatHelp(t *testing.T) {
	code, out, _ := runCLI(t, "ingest", "--format", "help")
	if code != 0 {
		t.Fatalf("ingest --format help: exit %d", code)
	}
	source := regexp.MustCompile(`\b[\w/-]+\.(go|py|ts|prisma)\b`) // the examples may hold such names, as logs do
	if code, again, _ := runCLI(t, "run", "--format", "help"); code != 0 || again != out {
		t.Errorf("run --format help: exit %d, or not ingest's table", code)
	}
	dir := t.TempDir()
	for _, a := range ingest.Abouts() {
		if a.Reads == "" || !strings.Contains(out, "\n"+a.Format+" ") || !strings.Contains(out, a.Reads) {
			t.Errorf("--format %s: not in --format help with what it reads (%q)", a.Format, a.Reads)
		}
		if src := source.FindString(a.Reads); src != "" {
			t.Errorf("--format %s: its help cites a source file, %q", a.Format, src)
		}
		if a.Example == "" {
			continue
		}
		trace := filepath.Join(dir, a.Format+".in")
		if err := os.WriteFile(trace, []byte(a.Example+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"ingest", "--trace", trace, "--format", a.Format, "--log-year", "2025", "--out", filepath.Join(dir, a.Format+".parquet")}
		if a.Format == ingest.FormatOpenAILog {
			args = append(args, "--tokenizer", testenv.SampleTokenizer())
		}
		code, stdout, stderr := runCLI(t, args...)
		var counts struct{ Records, Rejected int }
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if code != 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &counts) != nil || counts.Records != 1 || counts.Rejected != 0 {
			t.Errorf("--format %s: its example: exit %d, %q\n%s", a.Format, code, stdout, stderr)
		}
	}
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		if len(l) > 280 { // an OTLP line is long even with two attributes
			t.Errorf("--format help has a line of %d characters: %q", len(l), l)
		}
	}
	if len(lines) > 3*len(ingest.Abouts()) {
		t.Errorf("--format help is %d lines for %d formats: keep the table short", len(lines), len(ingest.Abouts()))
	}
}
