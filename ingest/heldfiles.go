package ingest

// The first pass over a set of files reads each through. A reader that holds its file's
// records in memory anyway (a gateway's log, sorted at open) can give them again, so the set
// keeps such readers from the first pass instead of reading, decompressing and parsing their
// files twice, up to heldCacheBytes: a day of modest per-minute logs is then read once, and a
// larger one still within bounded memory (the files past the cache are read again when the
// merge reaches them). Not under a quarantine: the first pass writes none.

// Rewindable is an Anchored reader that holds its records and can give them again from the
// first (Rewind); Held is how many it holds.
type Rewindable interface {
	Anchored
	Rewind()
	Held() int
}

const (
	// heldCacheBytes bounds the readers kept from the first pass, by heldRecordBytes a record
	// (a record, its options and its share of the reader's slices).
	heldCacheBytes  = 256 << 20
	heldRecordBytes = 512
)

// heldFiles are the readers kept from the first pass, by file.
type heldFiles struct {
	readers map[int]Rewindable
	records int64
	limit   int64 // 0: keep none
}

// newHeldFiles keeps up to heldCacheBytes, and no more than a quarter of the memory budget.
func newHeldFiles(o Options, quarantined bool) *heldFiles {
	h := &heldFiles{readers: map[int]Rewindable{}}
	if quarantined {
		return h
	}
	h.limit = heldCacheBytes / heldRecordBytes
	if budget := HoldLimit(o, heldRecordBytes); budget > 0 {
		h.limit = min(h.limit, budget/4)
	}
	return h
}

// keep keeps r for file i when it is Rewindable and fits, and reports whether it did; the
// caller closes it otherwise.
func (h *heldFiles) keep(i int, r Anchored) bool {
	rw, ok := r.(Rewindable)
	if !ok || h.records+int64(rw.Held()) > h.limit {
		return false
	}
	h.readers[i], h.records = rw, h.records+int64(rw.Held())
	return true
}

// take is file i's kept reader, rewound, or nil; the set owns it from then.
func (h *heldFiles) take(i int) Anchored {
	r, ok := h.readers[i]
	if !ok {
		return nil
	}
	delete(h.readers, i)
	h.records -= int64(r.Held())
	r.Rewind()
	return r
}

// close closes the readers still kept.
func (h *heldFiles) close() {
	for i, r := range h.readers {
		r.Close()
		delete(h.readers, i)
	}
}
