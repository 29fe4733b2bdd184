package prefixcache

// fenwick is a binary indexed tree of 0/1 marks over the slots 0..size-1 of a time window:
// prefix counts and single-slot updates in O(log size). f[j] (1-based) holds the marks of the
// slots j-lowbit(j) .. j-1; f[0] is unused. Counts are uint32: the window never holds more
// than maxDistinct marks.
type fenwick struct{ f []uint32 }

func (t *fenwick) size() int { return len(t.f) - 1 }

// mark adds a mark at slot i.
func (t *fenwick) mark(i int) {
	for j := i + 1; j < len(t.f); j += j & -j {
		t.f[j]++
	}
}

// unmark removes the mark at slot i, which must be marked.
func (t *fenwick) unmark(i int) {
	for j := i + 1; j < len(t.f); j += j & -j {
		t.f[j]--
	}
}

// before counts the marks at slots < i.
func (t *fenwick) before(i int) int {
	s := uint32(0)
	for j := i; j > 0; j -= j & -j {
		s += t.f[j]
	}
	return int(s)
}

// ranks turns the tree, in place, into the rank table of its slots: afterwards f[i+1] is the
// number of marks at slots < i, which is the slot a marked i moves to when the marks are
// packed to the front in order. O(size): first undo the tree (each node minus its children,
// highest first, leaves every f[j] the mark of slot j-1), then an exclusive prefix sum.
func (t *fenwick) ranks() {
	n := len(t.f) - 1
	for j := n; j >= 1; j-- {
		if p := j + j&-j; p <= n {
			t.f[p] -= t.f[j]
		}
	}
	run := uint32(0)
	for j := 1; j <= n; j++ {
		v := t.f[j]
		t.f[j] = run
		run += v
	}
}

// rank is the packed slot of marked slot i, valid after ranks.
func (t *fenwick) rank(i int) int { return int(t.f[i+1]) }

// reset makes the tree size slots long with marks at exactly the slots 0..marks-1, reusing the
// array when it is big enough. Node j covers slots j-lowbit(j) .. j-1, so it holds how many of
// those are below marks: O(size), no per-mark updates.
func (t *fenwick) reset(size, marks int) {
	if cap(t.f) >= size+1 {
		t.f = t.f[:size+1]
	} else {
		t.f = make([]uint32, size+1)
	}
	t.f[0] = 0
	for j := 1; j <= size; j++ {
		lo, hi := j-j&-j, min(j, marks)
		t.f[j] = uint32(max(hi-lo, 0))
	}
}
