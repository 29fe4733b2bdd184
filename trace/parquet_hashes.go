// Decoding the block_hashes list column into the slabs records' hashes are handed out from.

package trace

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/parquet-go/parquet-go"
)

// hashRef locates one row's hashes: slabs[slab][off:off+n].
type hashRef struct{ slab, off, n int32 }

// readHashes decodes the block_hashes list column into g.hashes, copying each page's values
// once, into the slab records share: a row starts at repetition level 0, and an element is
// present at the maximum definition level.
func (r *Reader) readHashes(c parquet.ColumnChunk) error {
	g := &r.g
	g.hashes = g.hashes[:0]
	clear(g.slabs)
	g.slabs = g.slabs[:0]
	maxDef := byte(r.cols.hashMaxDef)
	return eachPage(c, func(p parquet.Page) error {
		reps, defs := p.RepetitionLevels(), p.DefinitionLevels()
		if len(reps) != len(defs) {
			return errors.New("block_hashes: repetition and definition levels differ in length")
		}
		if len(reps) == 0 {
			return nil
		}
		vals, err := r.hashValues(p)
		if err != nil {
			return err
		}
		if len(vals) > len(reps) {
			return errors.New("block_hashes: more values than levels")
		}
		// A row whose list began on an earlier page is moved so that it stays contiguous.
		var carried []uint64
		if reps[0] != 0 {
			if len(g.hashes) == 0 {
				return errors.New("block_hashes: list continues a row that never started")
			}
			h := g.hashes[len(g.hashes)-1]
			carried = g.slabs[h.slab][h.off : h.off+h.n]
		}
		if len(carried)+len(vals) > math.MaxInt32 {
			return errors.New("block_hashes: more than 2^31 hashes in one page")
		}
		sid, base := r.room(len(carried) + len(vals))
		r.slab = append(append(r.slab, carried...), vals...)
		last := -1 // the row whose list is still open at the page's first level
		if carried != nil {
			last = len(g.hashes) - 1
			g.hashes[last] = hashRef{slab: sid, off: base, n: int32(len(carried))}
		}
		at := base + int32(len(carried)) // where the page's next value sits in the slab
		if len(vals) == len(reps) && bytes.Count(defs, []byte{maxDef}) == len(defs) {
			g.splitDense(reps, sid, at, last)
			return nil
		}
		vi := 0
		for k, rl := range reps {
			if rl == 0 {
				g.hashes = append(g.hashes, hashRef{slab: sid, off: at + int32(vi)})
			}
			if defs[k] == maxDef {
				if vi >= len(vals) {
					return errors.New("block_hashes: fewer values than levels")
				}
				vi++
				g.hashes[len(g.hashes)-1].n++
			}
		}
		return nil
	})
}

// hashValues is a block_hashes page's values, through its dictionary when it has one (into
// r.tmp, reused page to page).
func (r *Reader) hashValues(p parquet.Page) ([]uint64, error) {
	data := p.Data()
	d := p.Dictionary()
	if d == nil {
		return data.Uint64(), nil
	}
	r.tmp = r.tmp[:0]
	for _, idx := range data.Int32() {
		if idx < 0 || int(idx) >= d.Len() {
			return nil, fmt.Errorf("dictionary index %d out of range", idx)
		}
		r.tmp = append(r.tmp, uint64(d.Index(idx).Int64()))
	}
	return r.tmp, nil
}

// splitDense cuts a page whose every level holds a value (no empty lists) into rows, the
// common case and the fast one: rows start at the zero repetition levels, which IndexByte
// finds many bytes at a time. The page's values sit in slab sid from at; last is the row still
// open from the page before (-1 for none).
func (g *groupColumns) splitDense(reps []byte, sid, at int32, last int) {
	for k := 0; k < len(reps); k++ {
		z := bytes.IndexByte(reps[k:], 0)
		if z < 0 {
			break
		}
		k += z
		g.hashes = append(g.hashes, hashRef{slab: sid, off: at + int32(k)})
		if last >= 0 {
			g.hashes[last].n = at + int32(k) - g.hashes[last].off
		}
		last = len(g.hashes) - 1
	}
	g.hashes[last].n = at + int32(len(reps)) - g.hashes[last].off
}

// room makes space for n more values in the slab, starting a new one when it is too full,
// and returns the slab's index in this group and the offset the values will start at.
func (r *Reader) room(n int) (int32, int32) {
	g := &r.g
	if cap(r.slab)-len(r.slab) < n || len(g.slabs) == 0 {
		if cap(r.slab)-len(r.slab) < n {
			r.slab = make([]uint64, 0, max(n, slabValues))
		}
		g.slabs = append(g.slabs, r.slab[:cap(r.slab)])
	}
	return int32(len(g.slabs) - 1), int32(len(r.slab))
}

// slabValues is the size of a hash slab: large enough that allocating slabs costs little, small
// enough that a caller keeping a few records does not keep much memory alive with them.
const slabValues = 64 * 1024
