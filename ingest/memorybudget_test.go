package ingest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestSortOverMemoryBudget: --sort of an out-of-order file holds it whole, within the budget;
// past it, the read stops naming the file and the fix.
func TestSortOverMemoryBudget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "late.jsonl")
	writeMooncake(t, path, 300, 100, 200, 50)
	_, _, err := ReadAll(path, Options{Sort: true, MemoryBudget: 2 * heldBytes})
	if !errors.Is(err, ErrOverMemory) || !strings.Contains(err.Error(), "late.jsonl") || !strings.Contains(err.Error(), "--memory") {
		t.Fatalf("err = %v, want the budget's refusal", err)
	}
	recs, c, err := ReadAll(path, Options{Sort: true, MemoryBudget: 10 * heldBytes})
	if err != nil || len(recs) != 4 || !c.Sorted {
		t.Fatalf("%d records, %+v, %v", len(recs), c, err)
	}
}
