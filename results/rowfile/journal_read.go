package rowfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/llm-replay/replay/results"
)

// JournalInfo is what ReadJournal found in a journal.
type JournalInfo struct {
	ID [16]byte
	// Created is when the run's writer created the journal: just before its first request.
	Created time.Time
	Rows    int64
	// Size is the file's length; Valid the length of its header and whole, checked records.
	Size, Valid int64
	// Dropped says what was left out after Valid and why; "" when nothing was.
	Dropped string
}

// ReadJournal calls fn for every row of the journal at path, in the order they were written,
// and stops at the first record that is not whole and valid: a torn last record (cut by a
// kill, a power loss or a full disk at any byte) or a damaged one (checksum mismatch,
// impossible length, zero-filled tail) ends the rows there, the rest is dropped and
// JournalInfo.Dropped says so. That is not an error: errors are a file that is not a journal
// (its header is short, of another format or damaged), I/O errors and fn's error, each naming
// the file and the record's offset.
func ReadJournal(path string, fn func(results.Row) error) (JournalInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return JournalInfo{}, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return JournalInfo{}, fmt.Errorf("results: %w", err)
	}
	return readJournal(path, f, st.Size(), fn)
}

func readJournal(path string, in io.Reader, size int64, fn func(results.Row) error) (JournalInfo, error) {
	info := JournalInfo{Size: size}
	br := bufio.NewReaderSize(in, 64<<10)
	if err := readJournalHeader(path, br, &info); err != nil {
		return info, err
	}
	info.Valid = journalHeaderLen
	seed := seedOf(info.ID)
	var buf []byte
	for {
		row, n, err := nextRecord(br, &info, seed, &buf)
		if err != nil {
			return info, fmt.Errorf("results: %s: record %d at offset %d: %w", path, info.Rows, info.Valid, err)
		}
		if n == 0 {
			return info, nil
		}
		if err := fn(row); err != nil {
			return info, fmt.Errorf("results: %s: record %d at offset %d: %w", path, info.Rows, info.Valid, err)
		}
		info.Rows++
		info.Valid += n
	}
}

func readJournalHeader(path string, br *bufio.Reader, info *JournalInfo) error {
	var h [journalHeaderLen]byte
	if k, err := io.ReadFull(br, h[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("results: %s: %d bytes: not a journal (its header is %d bytes)", path, k, journalHeaderLen)
		}
		return fmt.Errorf("results: %s: %w", path, err)
	}
	if string(h[:8]) != journalMagic {
		return fmt.Errorf("results: %s: not a replay journal of this version (magic %q, want %q)", path, h[:8], journalMagic)
	}
	body := h[:journalHeaderLen-4]
	if maskCRC(crc32.Checksum(body, castagnoli)) != binary.LittleEndian.Uint32(h[journalHeaderLen-4:]) {
		return fmt.Errorf("results: %s: journal header damaged (checksum mismatch)", path)
	}
	copy(info.ID[:], h[8:24])
	info.Created = time.Unix(0, int64(binary.LittleEndian.Uint64(h[24:32])))
	return nil
}

// nextRecord reads the record at info.Valid and returns its row and length; a length of 0 is
// the end of the rows: a clean end, or a torn or damaged record, which info.Dropped then
// describes. buf is reused between records.
func nextRecord(br *bufio.Reader, info *JournalInfo, seed uint32, buf *[]byte) (results.Row, int64, error) {
	left := info.Size - info.Valid
	var h [recordHeaderLen]byte
	k, err := io.ReadFull(br, h[:])
	switch {
	case k == 0 && errors.Is(err, io.EOF):
		return results.Row{}, 0, nil
	case errors.Is(err, io.ErrUnexpectedEOF):
		return torn(info, left)
	case err != nil:
		return results.Row{}, 0, err
	}
	plen := int64(binary.LittleEndian.Uint32(h[:4]))
	if plen == 0 || plen > maxRecordLen {
		return damaged(info, left, fmt.Sprintf("impossible length %d", plen))
	}
	if plen > left-recordHeaderLen {
		return torn(info, left)
	}
	if int64(cap(*buf)) < plen {
		*buf = make([]byte, plen)
	}
	p := (*buf)[:plen]
	if _, err := io.ReadFull(br, p); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return torn(info, left) // the file shrank while it was read
		}
		return results.Row{}, 0, err
	}
	c := crc32.Update(crc32.Update(seed, castagnoli, h[:4]), castagnoli, p)
	if maskCRC(c) != binary.LittleEndian.Uint32(h[4:]) {
		return damaged(info, left, "checksum mismatch")
	}
	row, err := decodeRow(p)
	if err != nil {
		return damaged(info, left, "checksum valid but the row does not decode: "+err.Error())
	}
	return row, recordHeaderLen + plen, nil
}

func torn(info *JournalInfo, left int64) (results.Row, int64, error) {
	info.Dropped = fmt.Sprintf("dropped a torn last record of %d bytes", left)
	return results.Row{}, 0, nil
}

func damaged(info *JournalInfo, left int64, why string) (results.Row, int64, error) {
	info.Dropped = fmt.Sprintf("stopped at a damaged record at offset %d (%s), dropping the %d bytes from there", info.Valid, why, left)
	return results.Row{}, 0, nil
}
