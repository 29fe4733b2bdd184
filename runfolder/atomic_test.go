package runfolder

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// folderFiles is the names in dir, temporary files included.
func folderFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// wantFile checks path's bytes and mode.
func wantFile(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("%s holds %q, want %q", path, b, want)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != fileMode {
		t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), os.FileMode(fileMode))
	}
}

// TestWriteFile: a new file and a replaced one are whole, with the run files' mode, and no
// temporary file is left beside them.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Summary)
	for _, data := range []string{`{"first":1}`, `{"second":2}`} {
		if err := WriteFile(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		wantFile(t, path, data)
	}
	if got := folderFiles(t, dir); !slices.Equal(got, []string{Summary}) {
		t.Errorf("folder holds %v", got)
	}
}

// TestWriteFailsMidway: a fill that fails after writing part of the new file leaves the old
// file as it was and no temporary file; the error names the file and wraps fill's.
func TestWriteFailsMidway(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Report)
	if err := WriteFile(path, []byte("old report")); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	err := Write(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "half of a new rep"); err != nil {
			return err
		}
		return full
	})
	if !errors.Is(err, full) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v: want one naming %s and wrapping %v", err, path, full)
	}
	wantFile(t, path, "old report")
	if got := folderFiles(t, dir); !slices.Equal(got, []string{Report}) {
		t.Errorf("folder holds %v", got)
	}
}

// TestWriteStreams: Write takes what fill writes in many pieces.
func TestWriteStreams(t *testing.T) {
	path := filepath.Join(t.TempDir(), Queueing)
	err := Write(path, func(w io.Writer) error {
		for _, line := range []string{"id,ttft_ms\n", "a,1\n", "b,2\n"} {
			if _, err := io.WriteString(w, line); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, path, "id,ttft_ms\na,1\nb,2\n")
}

// TestReplace: a writer that opens its file by name writes it whole in place, or, when it
// fails, leaves the old file and no temporary one.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Requests)
	if err := WriteFile(path, []byte("old rows")); err != nil {
		t.Fatal(err)
	}
	broken := errors.New("duplicate request id")
	err := Replace(path, func(tmp string) error {
		if filepath.Dir(tmp) != dir {
			t.Errorf("temporary file %s is not in %s", tmp, dir)
		}
		if err := os.WriteFile(tmp, []byte("half the rows"), 0o600); err != nil {
			return err
		}
		return broken
	})
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v: want one naming %s and wrapping %v", err, path, broken)
	}
	wantFile(t, path, "old rows")
	if err := Replace(path, func(tmp string) error { return os.WriteFile(tmp, []byte("new rows"), 0o600) }); err != nil {
		t.Fatal(err)
	}
	wantFile(t, path, "new rows")
	if got := folderFiles(t, dir); !slices.Equal(got, []string{Requests}) {
		t.Errorf("folder holds %v", got)
	}
}

// TestWriteMissingFolder: a folder that does not exist is an error naming the file.
func TestWriteMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone", Summary)
	if err := WriteFile(path, []byte("{}")); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v: want one naming %s", err, path)
	}
}
