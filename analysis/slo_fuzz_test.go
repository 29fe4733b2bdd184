package analysis

import "testing"

// FuzzParseSLO: any input either fails or parses to an SLO whose String parses back to itself.
func FuzzParseSLO(f *testing.F) {
	f.Add("ttft=500ms,itl=60ms")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSLO(text)
		if err != nil {
			return
		}
		back, err := ParseSLO(s.String())
		if err != nil || back != s {
			t.Fatalf("%q -> %q -> %+v, %v", text, s.String(), back, err)
		}
	})
}
