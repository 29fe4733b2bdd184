package rowfile

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
)

// The journal (requests.journal beside requests.parquet) is the copy of the rows that
// survives a crash. Its layout, all integers little-endian:
//
//	header:  magic "RPLJRNL\x01" (8 bytes, the last byte is the version), journal id (16 random
//	         bytes), created (int64 Unix nanoseconds), CRC of the 32 bytes before it (4 bytes)
//	record:  payload length n (uint32, 1..maxRecordLen), CRC (uint32), payload (n bytes,
//	         rowcodec.go)
//
// Every CRC is CRC-32C (Castagnoli), masked as LevelDB masks its log's. A record's CRC covers
// its length field and payload and starts from the CRC of the journal id, so a record is
// valid only in the journal it was written to (a stale block of an earlier run's journal, or a
// zero-filled tail after a power loss, never checks), and a cut length or payload fails it.
const (
	journalMagic     = "RPLJRNL\x01"
	journalHeaderLen = 8 + 16 + 8 + 4
	// JournalHeaderLen is the header's size: a journal longer than this holds a row.
	JournalHeaderLen = journalHeaderLen
	recordHeaderLen  = 4 + 4
	// maxRecordLen bounds one row's payload: far above a row with a long kept prompt, far
	// below an allocation a damaged length field could make hurt.
	maxRecordLen = 256 << 20
	// MetaJournalID is the key, in requests.parquet's key-value metadata, of the id of the
	// journal written beside it: a complete file carrying it holds every row of that journal.
	MetaJournalID = "replay.journal_id"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func maskCRC(c uint32) uint32 { return (c>>15 | c<<17) + 0xa282ead8 }

// seedOf is where the CRC of every record of journal id starts.
func seedOf(id [16]byte) uint32 { return crc32.Update(0, castagnoli, id[:]) }

// JournalPath is the journal kept beside a results file: requests.parquet gives
// requests.journal.
func JournalPath(parquetPath string) string {
	return strings.TrimSuffix(parquetPath, filepath.Ext(parquetPath)) + ".journal"
}

// journal appends rows to the journal file; only the Writer's goroutine uses it.
type journal struct {
	path    string
	f       *os.File
	seed    uint32 // CRC-32C of the journal id: every record's CRC starts from it
	id      [16]byte
	buf     []byte
	synced  bool // nothing appended since the last sync
	written int64
}

// createJournal writes a new journal's header to a temporary file and puts it over path
// (runfolder.Replace: synced, renamed, the folder synced), so a journal on disk always has a
// whole header and is never one of an earlier run. The file stays open, under its new name,
// for the rows to come.
func createJournal(path string) (*journal, error) {
	j := &journal{path: path, synced: true}
	if _, err := rand.Read(j.id[:]); err != nil {
		return nil, fmt.Errorf("results: %s: journal id: %w", path, err)
	}
	j.seed = seedOf(j.id)
	hdr := appendJournalHeader(nil, j.id, time.Now())
	err := runfolder.Replace(path, func(tmp string) error {
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		j.f = f
		tryLock(f) // held until the process ends: Recover leaves a live run alone
		_, err = f.Write(hdr)
		return err
	})
	if err != nil {
		if j.f != nil {
			j.f.Close()
		}
		return nil, fmt.Errorf("results: creating journal: %w", err)
	}
	j.written = int64(len(hdr))
	return j, nil
}

func appendJournalHeader(b []byte, id [16]byte, created time.Time) []byte {
	b = append(b, journalMagic...)
	b = append(b, id[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(created.UnixNano()))
	return binary.LittleEndian.AppendUint32(b, maskCRC(crc32.Checksum(b, castagnoli)))
}

// appendRecord appends one framed row to b.
func appendRecord(b []byte, seed uint32, r *results.Row) []byte {
	at := len(b)
	b = append(b, make([]byte, recordHeaderLen)...)
	b = appendRow(b, r)
	n := len(b) - at - recordHeaderLen
	binary.LittleEndian.PutUint32(b[at:], uint32(n))
	c := crc32.Update(seed, castagnoli, b[at:at+4])
	c = crc32.Update(c, castagnoli, b[at+recordHeaderLen:])
	binary.LittleEndian.PutUint32(b[at+4:], maskCRC(c))
	return b
}

// append writes rows as one record each, in one write: once it returns they survive the
// process being killed; sync makes them survive a power loss. A failed or short write (a full
// disk) leaves at most a torn last record, which the reader drops.
func (j *journal) append(rows []results.Row) error {
	j.buf = j.buf[:0]
	for i := range rows {
		j.buf = appendRecord(j.buf, j.seed, &rows[i])
	}
	n, err := j.f.Write(j.buf)
	j.written += int64(n)
	j.synced = false
	if len(j.buf) > 64<<20 {
		j.buf = nil // a batch of huge kept prompts: do not keep its buffer for the run
	}
	if err != nil {
		return fmt.Errorf("results: %s: journal offset %d: %w", j.path, j.written, err)
	}
	return nil
}

// sync puts what was appended on stable storage.
func (j *journal) sync() error {
	if j.synced {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("results: %s: journal offset %d: %w", j.path, j.written, err)
	}
	j.synced = true
	return nil
}

// close closes the journal and, when the Parquet file beside it is complete and synced,
// removes it: the run folder then looks as if there had never been one.
func (j *journal) close(remove bool) error {
	err := j.f.Close()
	if err == nil && remove {
		err = os.Remove(j.path)
	}
	if err != nil {
		return fmt.Errorf("results: %s: %w", j.path, err)
	}
	return nil
}
