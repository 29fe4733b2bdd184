package gatewaylog

import (
	"errors"
	"testing"
	"time"
)

// TestGetThroughStrings: a key with dots is one member; a string holding JSON is followed
// into; what is absent says so, and a wrong kind is a FieldError naming the path.
func TestGetThroughStrings(t *testing.T) {
	rec, err := decodeRecord([]byte(`{"gen_ai.usage.input_tokens":12,"metadata":"{\"usage\":{\"cached\":\"4\"},\"tags\":[\"a\",\"b\"]}","n":"x","ticks":638733072468473710}`), 2025)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := rec.Get("gen_ai.usage.input_tokens").Int(); v != 12 || !ok || err != nil {
		t.Errorf("dotted key: %d %v %v", v, ok, err)
	}
	if v, ok, err := rec.Get("metadata", "usage", "cached").Int(); v != 4 || !ok || err != nil {
		t.Errorf("JSON in a string: %d %v %v", v, ok, err)
	}
	if s, _ := rec.Get("metadata", "tags").Index(1).String(); s != "b" || rec.Get("metadata", "tags").Len() != 2 {
		t.Errorf("array in a string: %q", s)
	}
	if rec.Get("metadata", "nope").Exists() || rec.Get("n", "deeper").Exists() {
		t.Error("absent members exist")
	}
	var fe *FieldError
	if _, _, err := rec.Get("n").Int(); !errors.As(err, &fe) || fe.Field != "n" {
		t.Errorf("wrong kind: %v", err)
	}
	n, _, _ := rec.Get("ticks").Number()
	i, _ := n.Int64()
	if got, _ := Ticks(i); !got.Equal(time.Date(2025, 1, 24, 9, 20, 46, 847371000, time.UTC)) {
		t.Errorf("ticks: %v", got)
	}
	if got, _ := Ticks(630822816000000000); !got.Equal(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)) { // DateTime(2000, 1, 1).Ticks
		t.Errorf("ticks of 2000-01-01: %v", got)
	}
	if _, err := decodeRecord([]byte(`[1,2]`), 0); err == nil {
		t.Error("an array read as a record")
	}
}

// TestTimeForms: every form the sources write, exact.
func TestTimeForms(t *testing.T) {
	want := time.Date(2025, 1, 24, 9, 20, 46, 847371000, time.UTC)
	ms := want.Truncate(time.Millisecond)
	sec := want.Truncate(time.Second)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2025-01-24T09:20:46.847371Z", want},
		{"2025-01-24T10:20:46.847371+01:00", want},
		{"2025-01-24T09:20:46.847Z", ms},
		{"2025-01-24T09:20:46Z", sec},
		{"2025-01-24 09:20:46.847371", want},
		{"2025-01-24T09:20:46.847371", want},
		{"24/Jan/2025:10:20:46 +0100", sec},
		{"01-24 09:20:46", sec},
		{"2025-01-24 09:20:46,847", ms},
		{"1737710446.847371", want},
		{"1737710446847.371", want},
		{"1737710446847371000", want},
		{"2025-01-24 09:20:46.847371 UTC", want},
		{"1.737710446847371E9", want},
		{"1.737710446847371e+09", want},
		{"1.7377104468E9", want.Truncate(100 * time.Millisecond)},
	} {
		got, err := ParseText(c.in, 2025)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
	for _, n := range []float64{1737710446.847, 1737710446847, 1737710446847000} {
		if got, err := Epoch(n); err != nil || got.Sub(ms).Abs() > time.Microsecond {
			t.Errorf("epoch %v: %v %v", n, got, err)
		}
	}
	if _, err := ParseText("01-24 09:20:46", 0); err == nil {
		t.Error("a timestamp without a year read without one given")
	}
	for _, bad := range []string{"yesterday", "", "12", "2025-01-24 09:20:46 PST", "1E400", "1.5E-3"} {
		if _, err := ParseText(bad, 2025); err == nil {
			t.Errorf("%q read as a time", bad)
		}
	}
}
