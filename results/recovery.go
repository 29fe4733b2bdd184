package results

import (
	"fmt"
	"time"
)

// Recovery says how the rows of a run cut before its writer closed (killed, power lost, disk
// full) were recovered from its journal.
type Recovery struct {
	// From is the journal's file name.
	From string `json:"from"`
	Rows int64  `json:"rows"`
	// DroppedBytes were left out after the last whole record; Dropped says why.
	DroppedBytes int64  `json:"dropped_bytes"`
	Dropped      string `json:"dropped,omitempty"`
	// JournalCreated is when the run's writer started, just before its first request.
	JournalCreated time.Time `json:"journal_created,omitzero"`
	// Rebuilt is true when this Recover call rebuilt the file (false: an earlier one did).
	Rebuilt bool `json:"-"`
}

// String is the one-line account for stderr.
func (r *Recovery) String() string {
	s := fmt.Sprintf("run was cut (no clean close): recovered %d rows from %s", r.Rows, r.From)
	if !r.Rebuilt {
		s = fmt.Sprintf("run was cut (no clean close): its %d rows were recovered earlier from %s", r.Rows, r.From)
	}
	if r.Dropped != "" {
		s += ", " + r.Dropped
	}
	return s
}
