package analysis

import (
	"testing"
	"time"
)

func TestParseSLO(t *testing.T) {
	s, err := ParseSLO(" TTFT=500ms, itl=60ms,e2e=10s,tpot=40ms ")
	if err != nil {
		t.Fatal(err)
	}
	want := SLO{TTFT: 500 * time.Millisecond, ITL: 60 * time.Millisecond, TPOT: 40 * time.Millisecond, E2E: 10 * time.Second}
	if s != want {
		t.Errorf("got %+v", s)
	}
	if s.String() != "ttft=500ms,itl=60ms,tpot=40ms,e2e=10s" {
		t.Errorf("String %q", s.String())
	}
	if s, err := ParseSLO(""); err != nil || !s.IsZero() {
		t.Errorf("empty: %+v %v", s, err)
	}
	for _, bad := range []string{"ttft", "ttft=", "ttft=5", "foo=1s", "ttft=1s,ttft=2s", "ttft=-1s", "ttft=0s", ","} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
