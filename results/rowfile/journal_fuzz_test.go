package rowfile

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

// FuzzReadJournal feeds arbitrary bytes to the journal reader: it must return the rows of
// whole, checked records or an error naming the file, never panic or allocate by a damaged
// length; and whatever it reads must re-encode to the same bytes (no row is misread).
func FuzzReadJournal(f *testing.F) {
	full, offsets, _ := journalBytes(4)
	f.Add(full)
	f.Add(full[:offsets[2]+5])
	f.Add(full[:journalHeaderLen])
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testenv.PanicAfter(10*time.Second, "reading fuzz.journal")()
		var re []byte
		info, err := readJournal("fuzz.journal", bytes.NewReader(b), int64(len(b)), func(r results.Row) error {
			re = appendRecord(re, 0, &r) // the framing is checked by the CRC; compare payloads
			return nil
		})
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.journal") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if info.Valid > int64(len(b)) || (info.Valid < int64(len(b))) != (info.Dropped != "") {
			t.Fatalf("valid %d of %d bytes, dropped %q", info.Valid, len(b), info.Dropped)
		}
		if got, want := payloads(re), payloads(b[journalHeaderLen:info.Valid]); !bytes.Equal(got, want) {
			t.Fatalf("rows re-encode to other bytes than were read")
		}
	})
}

// payloads strips the record headers of a run of whole records.
func payloads(b []byte) []byte {
	var out []byte
	for len(b) >= recordHeaderLen {
		n := int(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
		out = append(out, b[recordHeaderLen:recordHeaderLen+n]...)
		b = b[recordHeaderLen+n:]
	}
	return out
}
