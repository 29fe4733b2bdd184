package ingest

import (
	"testing"

	"github.com/llm-replay/replay/trace"
)

// heldFake is a Rewindable of n records.
type heldFake struct {
	n       int
	rewound bool
	closed  bool
}

func (h *heldFake) Next() (trace.Record, error) { return trace.Record{}, nil }
func (h *heldFake) Counts() Counts              { return Counts{} }
func (h *heldFake) Close() error                { h.closed = true; return nil }
func (h *heldFake) Origin() int64               { return 0 }
func (h *heldFake) Rewind()                     { h.rewound = true }
func (h *heldFake) Held() int                   { return h.n }

// TestHeldFilesBound: readers are kept while their records fit the cache, refused past it,
// rewound when taken, closed when the set closes; none is kept under a quarantine.
func TestHeldFilesBound(t *testing.T) {
	h := &heldFiles{readers: map[int]Rewindable{}, limit: 10}
	a, b, c := &heldFake{n: 6}, &heldFake{n: 5}, &heldFake{n: 4}
	if !h.keep(0, a) || h.keep(1, b) || !h.keep(2, c) {
		t.Fatalf("kept %v, want 0 and 2 (6+4 records within 10)", h.readers)
	}
	if r := h.take(0); r != a || !a.rewound || h.records != 4 {
		t.Fatalf("take: %v, rewound %v, %d records left", r, a.rewound, h.records)
	}
	if h.take(1) != nil {
		t.Error("a reader not kept was taken")
	}
	h.close()
	if !c.closed || a.closed {
		t.Errorf("close: kept reader closed %v, taken one closed %v", c.closed, a.closed)
	}
	if q := newHeldFiles(Options{}, true); q.keep(0, &heldFake{n: 1}) {
		t.Error("a reader kept under a quarantine")
	}
}
