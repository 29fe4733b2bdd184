// normalizedSource: our own normalized trace files read back through trace.Reader.

package ingest

import (
	"encoding/json"
	"os"

	"github.com/llm-replay/replay/trace"
)

// normalizedSource reads our own trace files back, keeping each record's stored source and line.
type normalizedSource struct {
	name string
	tr   *trace.Reader
	f    *os.File
	loc  rowLocator
	idx  int64
	// last is the row handed out last, for raw (only rejected rows need it, so it is not
	// copied), and lastBlockSize its stored block size, which validation may fill in.
	last          *row
	lastBlockSize int
}

func (s *normalizedSource) next(r *row) error {
	rec, err := s.tr.Next()
	if err != nil {
		return err
	}
	s.idx++
	s.last, s.lastBlockSize = r, rec.BlockSize
	*r = row{t: int64(rec.Timestamp), rec: rec, hasHashes: rec.BlockHashes != nil}
	return nil
}

func (s *normalizedSource) raw() []byte {
	var rec trace.Record
	if s.last != nil {
		rec = s.last.rec
		rec.BlockSize = s.lastBlockSize
	}
	b, _ := json.Marshal(rec)
	return b
}

func (s *normalizedSource) where() *RowError { return s.loc.locate(s.name, s.idx-1) }

func (s *normalizedSource) close() error {
	err := s.tr.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}
