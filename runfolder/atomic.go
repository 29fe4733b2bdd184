package runfolder

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// fileMode is every run file's mode: readable by all, as os.Create would leave it (a
// temporary file starts at 0600).
const fileMode = 0o644

// WriteFile puts data at path atomically (Write with the bytes).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write puts at path what fill writes, atomically: fill writes a temporary file in path's
// folder, which is synced, renamed over path, and the folder synced, so that path holds the
// old file or the whole new one, even after a crash or a power loss. When anything fails,
// fill included, path is left as it was and the temporary file is removed; the error names
// path. fill is handed the file itself, unbuffered: a caller of many small writes buffers.
func Write(path string, fill func(io.Writer) error) error {
	f, err := createTemp(path)
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = commit(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("runfolder: writing %s: %w", path, err)
	}
	return nil
}

// Replace is Write for a writer that opens its file by name (results' Parquet writer): build
// writes and closes the file named tmp, in path's folder; Replace then syncs it, renames it
// over path and syncs the folder, removing it instead when anything failed. A file build
// leaves open (a journal that goes on growing) stays open under its new name.
func Replace(path string, build func(tmp string) error) error {
	f, err := createTemp(path)
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Close()
	if err == nil {
		err = build(tmp)
	}
	if err == nil {
		err = syncPath(tmp) // build closed it: open it again to flush it
	}
	if err == nil {
		err = commit(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("runfolder: writing %s: %w", path, err)
	}
	return nil
}

// createTemp creates the temporary file of path beside it, hidden (".summary.json.123"), so
// that the rename stays within one file system and a glob of the folder's files misses it.
func createTemp(path string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("runfolder: writing %s: %w", path, err)
	}
	return f, nil
}

// commit gives tmp the run files' mode, renames it over path and makes the rename durable:
// without the folder's sync a power loss can undo a rename the file's own sync did not cover.
func commit(tmp, path string) error {
	if err := os.Chmod(tmp, fileMode); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncPath(filepath.Dir(path))
}

// syncPath flushes a file, or a folder's entries, to the disk.
func syncPath(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	err = f.Sync()
	return errors.Join(err, f.Close())
}
