package gchold

import (
	"errors"
	"io"
	"runtime/debug"
	"strings"
	"testing"
)

// The schedule's memory limit: under a budget, the budget, refused when what is in use leaves
// under 256 MiB of it; without one, in use plus the larger of 1 GiB and the live heap, at most
// half the machine, and none when that leaves under 256 MiB of room.
func TestGCLimit(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		inUse, live, ram, budget, want uint64
		ok                             bool
	}{
		{gib / 2, gib / 4, 24 * gib, 0, gib/2 + gib, true},   // small heap: 1 GiB of headroom
		{3 * gib, 2 * gib, 24 * gib, 0, 5 * gib, true},       // large live heap: room for it again
		{3 * gib, 2 * gib, 8 * gib, 0, 4 * gib, true},        // capped at half of 8 GiB
		{3 * gib, 2 * gib, 6 * gib, 0, 3 * gib, false},       // no room under the cap
		{gib, gib, 0, 0, 0, false},                           // memory unknown
		{gib / 2, gib / 4, 24 * gib, 2 * gib, 2 * gib, true}, // a budget: collect near it
		{gib / 2, gib / 4, 0, 2 * gib, 2 * gib, true},        // a budget needs no machine size
		{2*gib - gib/8, gib, 24 * gib, 2 * gib, 0, false},    // a budget with no room left
	} {
		got, ok := gcLimit(c.inUse, c.live, c.ram, c.budget)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("gcLimit(%d, %d, %d, %d) = %d, %v; want %d, %v", c.inUse, c.live, c.ram, c.budget, got, ok, c.want, c.ok)
		}
	}
}

// Hold turns proportional collection off under a limit and puts both back, when the last of
// overlapping holds ends (the settings are the process's).
func TestHoldGCRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	if MachineMemory() == 0 {
		t.Skip("this machine's memory is unknown: Hold leaves the collector alone")
	}
	gcHold.Lock()
	others := gcHold.holders
	gcHold.Unlock()
	if others > 0 {
		t.Skip("another run in this process holds the collector")
	}
	before := debug.SetGCPercent(100)
	restore, err := Hold(io.Discard, 0)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Hold(io.Discard, 0)
	if err != nil {
		t.Fatal(err)
	}
	if pct := debug.SetGCPercent(-1); pct != -1 {
		t.Errorf("GOGC while held: %d, want off", pct)
	}
	restore()
	restore() // twice: still one release
	if pct := debug.SetGCPercent(-1); pct != -1 {
		t.Errorf("GOGC while the second hold lasts: %d, want off", pct)
	}
	second()
	if pct := debug.SetGCPercent(before); pct != 100 {
		t.Errorf("GOGC after: %d, want 100", pct)
	}
	if lim := debug.SetMemoryLimit(-1); lim != int64(^uint64(0)>>1) {
		t.Errorf("memory limit after: %d, want none", lim)
	}
}

// A budget the process already nearly fills is refused, naming what is in use and the budget;
// one with room becomes the limit.
func TestHoldBudget(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	gcHold.Lock()
	others := gcHold.holders
	gcHold.Unlock()
	if others > 0 {
		t.Skip("another run in this process holds the collector")
	}
	_, err := Hold(io.Discard, 1<<20)
	var ob *OverBudget
	if !errors.As(err, &ob) || ob.Budget != 1<<20 || ob.InUse == 0 {
		t.Fatalf("Hold under a 1 MiB budget: %v, want *OverBudget", err)
	}
	if !strings.Contains(err.Error(), "memory budget") {
		t.Errorf("error %q does not name the budget", err)
	}
	restore, err := Hold(io.Discard, 64<<30)
	if err != nil {
		t.Fatal(err)
	}
	lim := debug.SetMemoryLimit(-1)
	restore()
	if lim != 64<<30 {
		t.Errorf("memory limit under a 64 GiB budget: %d", lim)
	}
}
