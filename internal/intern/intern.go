// Package intern keeps one copy of strings that repeat (model names, sessions, file names read
// out of columnar files), so values copied out of reused buffers do not cost a copy each. It
// owns nothing else and must not grow without bound.
package intern

// Table holds the strings seen so far, up to a limit; past it, values are copied but not kept.
type Table struct {
	m map[string]string
}

// Limit is how many distinct strings a Table keeps: a column of distinct values then costs a
// copy per value and no more memory.
const Limit = 1 << 16

// String returns b as a string that does not share b's memory, the same copy for equal values
// while the table holds under Limit of them.
func (t *Table) String(b []byte) string {
	if s, ok := t.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if t.m == nil {
		t.m = map[string]string{}
	}
	if len(t.m) < Limit {
		t.m[s] = s
	}
	return s
}
