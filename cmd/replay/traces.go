package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/ingest"
)

// --trace takes a file, a folder or a glob, and may be repeated: the files they name are read
// as one log (ingest.Resolve, ingest's file set). A shell expands an unquoted glob before
// replay sees it (`--trace logs/*.gz` arrives as `--trace logs/a.gz logs/b.gz`), so the
// arguments left after the flags, when --trace was given, are taken as more of its values.

// traceUsage is --trace's help: what the command reads, then what the flag takes.
func traceUsage(what string) string {
	return what + "; a file, a folder (read recursively; README, *.md, manifests, _SUCCESS and dot files left out) or a glob, repeatable: every file one log, merged in time order (ties by file name, then line); gzip and zstd read by content; a gateway's or cloud's log (litellm, apim, ...) as JSON lines, one JSON array or pretty-printed JSON documents"
}

// resolve finds the files of --trace's values and more (the arguments a shell's expansion
// left), once: trace becomes the one file, or names the values when there are several files
// (read through files).
func (f *ingestFlags) resolve(more []string) error {
	if len(more) > 0 && len(f.traces) == 0 {
		return fmt.Errorf("unexpected arguments %q", more)
	}
	f.traces = append(f.traces, more...)
	if len(f.traces) == 0 || f.trace != "" {
		return nil
	}
	if len(f.traces) == 1 && isPlainFile(f.traces[0]) {
		f.trace = f.traces[0] // one file, read as it always was
		return nil
	}
	in, err := ingest.Resolve(f.traces)
	if err != nil {
		return err
	}
	f.notLogs = in.NotLogs
	if len(in.Files) == 1 {
		f.trace = in.Files[0]
		return nil
	}
	f.trace, f.files = strings.Join(f.traces, " "), in.Files
	return nil
}

// isPlainFile reports whether path is an existing file that is no folder.
func isPlainFile(path string) bool {
	in, err := ingest.Resolve([]string{path})
	return err == nil && len(in.Files) == 1 && in.Files[0] == path && len(in.NotLogs) == 0
}

// sayNotLogs lists on stderr the files the folders held that are no log, left out.
func (f *ingestFlags) sayNotLogs(stderr io.Writer) {
	for _, p := range f.notLogs {
		fmt.Fprintf(stderr, "replay: %s: left out: not a log (a README, notes, a manifest, a marker or a dot file)\n", p)
	}
}

// recordFiles replaces --trace's values with the files they resolved to, absolute, so that
// run.yaml holds the very files the run read (a folder may gain files before --config or
// --resume repeats it).
func (f *ingestFlags) recordFiles(fs *pflag.FlagSet) error {
	if len(f.traces) == 0 {
		return nil
	}
	files := f.files
	if len(files) == 0 {
		files = []string{f.trace}
	}
	abs := make([]string, len(files))
	for i, p := range files {
		a, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		abs[i] = a
	}
	sv, ok := fs.Lookup("trace").Value.(pflag.SliceValue)
	if !ok {
		return errors.New("--trace is not a list flag")
	}
	return sv.Replace(abs)
}
