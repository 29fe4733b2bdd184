package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// minRow is the shortest trace line the check looks for, and the width of the window it slides
// over the repository: shorter lines ("0,1,2" and the like) could turn up anywhere by chance.
const minRow = 24

// TestNoTraceRowsInRepository fails when a file of the repository holds a line of the shared
// public traces. Tests may read the traces, but the repository must never carry a copy of any
// row of them, not even one inside a fixture or a fuzz seed: fixtures use invented values.
//
// The files are those git lists as tracked plus the untracked ones it does not ignore (a new
// fixture is caught before it is added, not after it is committed); without git, the tree
// minus .git, node_modules and the ignored top-level .cache, bin and out. Every file is
// scanned as it is and, where it holds backslash escapes, unescaped as a Go or JSON string
// would be: a row quoted in a Go test (f.Add([]byte("..."))), a fuzz corpus file or a JSON
// string has its quotes escaped.
func TestNoTraceRowsInRepository(t *testing.T) {
	start := time.Now()
	tracesDir := sharedTraces(t)
	ix := indexTraceLines(t, tracesDir)
	root := RepoRoot()
	files := repositoryFiles(t, root, tracesDir)
	if len(files) == 0 {
		t.Fatalf("no files listed in %s: the check would pass on nothing", root)
	}
	var found []string
	var scanned int64
	for _, rel := range files {
		p := filepath.Join(root, rel)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // tracked but deleted from the work tree: holds nothing
		}
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if !fi.Mode().IsRegular() {
			continue // a symlink or submodule is not a copy of anything
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		scanned += int64(len(b))
		if row := ix.holds(b); row != nil {
			found = append(found, fmt.Sprintf("%s: %s line %d: %q", rel, row.file, row.line, clip(row.text)))
		}
	}
	t.Logf("%d lines of %s looked for in %d files (%.1f MB) in %v", ix.lines, tracesDir, len(files), float64(scanned)/1e6, time.Since(start).Round(time.Millisecond))
	if len(found) > 0 {
		t.Errorf("%d repository files hold rows of the public traces in %s (fixtures must use invented values, never copied rows):\n\t%s",
			len(found), tracesDir, strings.Join(found, "\n\t"))
	}
}

// unescaper undoes the escapes a row picks up inside a Go or JSON string literal. One pass,
// leftmost match first, so `\\n` is a backslash and an n, as in Go.
var unescaper = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n", `\r`, "\r", `\t`, "\t")

// traceRow is one line of a trace file.
type traceRow struct {
	text []byte
	file string
	line int
}

// rowIndex finds trace lines inside other files: a window of minRow bytes slides over a file,
// and only where the window equals the head of some trace line is the whole line compared.
type rowIndex struct {
	// start has a bit for every first two bytes a trace line begins with: most windows are ruled
	// out by it without hashing minRow bytes for a map lookup.
	start  [1 << 16 / 64]uint64
	byHead map[[minRow]byte][]*traceRow
	lines  int
}

// indexTraceLines indexes every line of minRow bytes or more of each trace file in dir, but
// a CSV's first line: that is the format's column names, which a fixture of the same format
// must have.
func indexTraceLines(t *testing.T, dir string) *rowIndex {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := &rowIndex{byHead: make(map[[minRow]byte][]*traceRow)}
	seen := make(map[string]bool)
	for _, e := range ents {
		// SOURCES.md is the folder's documentation, not a trace: its attribution lines may be
		// quoted in the project.
		if !e.Type().IsRegular() || strings.EqualFold(filepath.Ext(e.Name()), ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		csv := strings.EqualFold(filepath.Ext(e.Name()), ".csv")
		for i, line := range bytes.Split(b, []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if (csv && i == 0) || len(line) < minRow || seen[string(line)] {
				continue
			}
			seen[string(line)] = true
			head := [minRow]byte(line)
			ix.byHead[head] = append(ix.byHead[head], &traceRow{text: line, file: e.Name(), line: i + 1})
			s := uint16(line[0])<<8 | uint16(line[1])
			ix.start[s/64] |= 1 << (s % 64)
			ix.lines++
		}
	}
	if ix.lines == 0 {
		t.Fatalf("no trace lines of %d bytes or more in %s: the check would pass on nothing", minRow, dir)
	}
	return ix
}

// holds returns a trace line that b holds, as it is or unescaped, or nil.
func (ix *rowIndex) holds(b []byte) *traceRow {
	if r := ix.find(b); r != nil || bytes.IndexByte(b, '\\') < 0 {
		return r
	}
	return ix.find([]byte(unescaper.Replace(string(b))))
}

// find returns a trace line that b holds as it is, or nil.
func (ix *rowIndex) find(b []byte) *traceRow {
	for i := 0; i+minRow <= len(b); i++ {
		s := uint16(b[i])<<8 | uint16(b[i+1])
		if ix.start[s/64]&(1<<(s%64)) == 0 {
			continue
		}
		for _, r := range ix.byHead[[minRow]byte(b[i:i+minRow])] {
			if bytes.HasPrefix(b[i:], r.text) {
				return r
			}
		}
	}
	return nil
}

// repositoryFiles lists the repository's files, relative to root, from git when it can.
func repositoryFiles(t *testing.T, root, tracesDir string) []string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
		if err == nil {
			files := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			slices.Sort(files)
			// An unmerged file is listed once per stage.
			return slices.Compact(files)
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%v: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		t.Logf("git ls-files: %v; walking the tree instead", err)
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			top := filepath.Dir(rel) == "."
			switch {
			case d.Name() == ".git", d.Name() == "node_modules", p == tracesDir,
				top && (d.Name() == ".cache" || d.Name() == "bin" || d.Name() == "out"):
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !strings.HasSuffix(d.Name(), ".test") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// clip shortens a Mooncake row (thousands of bytes of hash ids) for the error message.
func clip(b []byte) string {
	if len(b) > 100 {
		return string(b[:100]) + "..."
	}
	return string(b)
}

// TestRowIndex holds the check itself to what it must find, on invented trace files, so it is
// tested even where the public traces are absent.
func TestRowIndex(t *testing.T) {
	dir := t.TempDir()
	csvRows := "when,prompt,output,extra-long-header\n2031-04-05 06:07:08.1234567,321,54\nshort,1,2\n"
	jsonRow := `{"timestamp": 7, "input_length": 901, "output_length": 12, "hash_ids": [5, 6]}`
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte(strings.ReplaceAll(csvRows, "\n", "\r\n")), 0o644)
	os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte(jsonRow+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("| a documentation line long enough to count |\n"), 0o644)
	ix := indexTraceLines(t, dir)
	if ix.lines != 2 {
		t.Fatalf("indexed %d lines, want 2 (not the CSV header, the short row or the .md)", ix.lines)
	}
	cases := []struct {
		in   string
		want string // the file:line found, "" for none
	}{
		{"x,y\n2031-04-05 06:07:08.1234567,321,54\n", "t.csv:2"},
		{"2031-04-05 06:07:08.1234567,321,5", ""}, // a row cut short is not the row
		{"when,prompt,output,extra-long-header\nshort,1,2\n", ""},
		{"go test fuzz v1\n[]byte(" + fmt.Sprintf("%q", jsonRow) + ")\n", "t.jsonl:1"},
		{"\tf.Add([]byte(\"a,b\\n2031-04-05 06:07:08.1234567,321,54\\n\"))", "t.csv:2"},
		{"| a documentation line long enough to count |", ""},
	}
	for _, c := range cases {
		r := ix.holds([]byte(c.in))
		got := ""
		if r != nil {
			got = fmt.Sprintf("%s:%d", r.file, r.line)
		}
		if got != c.want {
			t.Errorf("find in %q = %q, want %q", c.in, got, c.want)
		}
	}
}
