package rowfile

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/internal/pqcheck"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
)

// MetaRecovery is the key, in the key-value metadata of a results file rebuilt from its
// journal, of the Recovery as JSON: the file itself says that its run was cut.
const MetaRecovery = "replay.recovery"

// Recover makes the results file at path whole when its run was cut before its writer
// closed, and says so. The journal beside it (JournalPath) is the truth unless path is a
// complete Parquet file carrying the journal's id (MetaJournalID: the writer closed cleanly,
// or an earlier Recover rebuilt it): then path already holds every row and nothing is done.
// Otherwise (path missing, without a footer, or of an earlier run) path is rebuilt from the
// journal's whole records, atomically, so no row is ever counted twice. Recover returns nil
// when the run was not cut, and the Recovery when it was, now or earlier (read back from
// the file's MetaRecovery). The journal is kept: it is the evidence, and a later Recover
// finds the rebuilt file carrying its id.
func Recover(path string) (*results.Recovery, error) {
	jpath := JournalPath(path)
	meta, complete := parquetMeta(path)
	var prev *results.Recovery
	if s, ok := meta[MetaRecovery]; ok {
		prev = new(results.Recovery)
		if err := json.Unmarshal([]byte(s), prev); err != nil {
			return nil, fmt.Errorf("results: %s: metadata %s: %w", path, MetaRecovery, err)
		}
	}
	id, err := journalID(jpath)
	if errors.Is(err, fs.ErrNotExist) {
		return prev, nil // no journal: the file is the truth, and Read says if it is not whole
	}
	if err != nil {
		return nil, err
	}
	if complete && meta[MetaJournalID] == id {
		return prev, nil
	}
	return rebuild(path, jpath)
}

// journalID reads the id from the header of the journal at path; a journal a live run still
// holds is an error.
func journalID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	if !tryLock(f) {
		return "", fmt.Errorf("results: %s: a run is still writing it (the journal is locked): report it once the run has ended", path)
	}
	var info JournalInfo
	if err := readJournalHeader(path, bufio.NewReader(f), &info); err != nil {
		return "", err
	}
	return hex.EncodeToString(info.ID[:]), nil
}

// parquetMeta returns the key-value metadata of the Parquet file at path and whether it is
// complete (its footer and pages check); a missing or damaged file is simply not complete.
func parquetMeta(path string) (meta map[string]string, complete bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			meta, complete = nil, false
		}
	}()
	pf, err := pqcheck.Open(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, false
	}
	meta = map[string]string{}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		meta[kv.Key] = kv.Value
	}
	return meta, true
}

// rebuild writes path anew from the journal's whole records, in place only when whole
// (runfolder.Replace).
func rebuild(path, jpath string) (*results.Recovery, error) {
	var rec *results.Recovery
	err := runfolder.Replace(path, func(tmp string) error {
		w, err := NewWriterWith(tmp, WriterOptions{NoJournal: true})
		if err != nil {
			return err
		}
		info, err := ReadJournal(jpath, w.Write)
		rec = &results.Recovery{From: filepath.Base(jpath), Rows: info.Rows, DroppedBytes: info.Size - info.Valid,
			Dropped: info.Dropped, JournalCreated: info.Created, Rebuilt: true}
		if err == nil {
			b, _ := json.Marshal(rec) // a struct of strings, numbers and a time cannot fail
			w.setMetadata(MetaJournalID, hex.EncodeToString(info.ID[:]))
			w.setMetadata(MetaRecovery, string(b))
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("results: rebuilding from %s: %w", jpath, err)
	}
	return rec, nil
}
