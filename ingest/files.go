package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Inputs are the files --trace's values name, read as one log: a file, every file under a
// folder (recursively), or a glob's matches, of each value given. Files is sorted by path,
// which is the order of records logged at the same instant.
type Inputs struct {
	Files []string
	// NotLogs are the files found in folders that say they are no log (a README, a manifest,
	// a job's _SUCCESS marker, a dot file): left out, for the user to be told.
	NotLogs []string
}

// Resolve finds the files of --trace's values. A value that is an existing file is read
// whatever its name; a folder gives every file under it but those that are no log
// (notLog); anything else is a glob (filepath.Match's syntax), which must match something.
func Resolve(specs []string) (Inputs, error) {
	var in Inputs
	for _, spec := range specs {
		if err := in.add(spec); err != nil {
			return Inputs{}, err
		}
	}
	slices.Sort(in.Files)
	in.Files = slices.Compact(in.Files)
	slices.Sort(in.NotLogs)
	in.NotLogs = slices.Compact(in.NotLogs)
	if len(in.Files) == 0 {
		return Inputs{}, fmt.Errorf("--trace %s: %w: no log file in it", strings.Join(specs, " "), ErrEmpty)
	}
	return in, nil
}

// add adds one --trace value's files.
func (in *Inputs) add(spec string) error {
	st, err := os.Stat(spec)
	switch {
	case err == nil && st.IsDir():
		return in.walk(spec)
	case err == nil:
		in.Files = append(in.Files, spec)
		return nil
	case !errors.Is(err, fs.ErrNotExist) || !strings.ContainsAny(spec, `*?[`):
		return fmt.Errorf("--trace: %w", err)
	}
	matches, err := filepath.Glob(spec)
	if err != nil {
		return fmt.Errorf("--trace %s: %w", spec, err)
	}
	if len(matches) == 0 {
		return fmt.Errorf("--trace %s: no file matches", spec)
	}
	for _, m := range matches {
		if err := in.add(m); err != nil {
			return err
		}
	}
	return nil
}

// walk adds a folder's files, recursively, setting aside those that are no log.
func (in *Inputs) walk(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		if path == dir {
			return nil
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir // .git and the like hold no logs
			}
			return nil
		}
		if notLog(d.Name()) || !d.Type().IsRegular() {
			in.NotLogs = append(in.NotLogs, path)
			return nil
		}
		in.Files = append(in.Files, path)
		return nil
	})
}

// notLog reports whether a file's name says it is no log, as the folders logs are delivered
// in hold beside them: a README, Markdown notes, a manifest of the delivery (manifest.json,
// *.manifest), Hadoop's and Spark's _SUCCESS marker, and dot files (.DS_Store, a partial
// download's temporary).
func notLog(name string) bool {
	lower := strings.ToLower(name)
	switch {
	case strings.HasPrefix(name, "."), strings.HasPrefix(lower, "readme"),
		strings.HasSuffix(lower, ".md"), lower == "manifest.json",
		strings.HasSuffix(lower, ".manifest"), name == "_SUCCESS":
		return true
	}
	return false
}
