package ingest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// FuzzHashArray holds the scanner's fast hash-array path to the converter's plain parser: when
// the fast path accepts an array, both must give the same numbers.
func FuzzHashArray(f *testing.F) {
	for _, s := range []string{"[0, 1, 2]", "[]", "[ 12345678901234567890]", "[123456789, 1234567890123456789,7]", "[007]", "[1,\t2 ]", "[18446744073709551615]", "[99999999999999999999]",
		"[00000000]", "[000000001, 2]", "[12345678]", "[123456789, 987654321]}", "[1234567x]", "[12345678:]", "[9999999999999999999]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, arr []byte) {
		if len(arr) == 0 || arr[0] != '[' {
			return
		}
		var s jsonScanner
		n := s.uintArray(arr)
		if n == 0 {
			return
		}
		var c converter
		want, err := c.hashes(arr[:n])
		if err != nil {
			t.Fatalf("fast path accepted %q, converter says %v", arr[:n], err)
		}
		if len(want) != len(s.ints) || (len(want) > 0 && !slices.Equal(want, s.ints)) {
			t.Fatalf("%q: fast path %v, converter %v", arr[:n], s.ints, want)
		}
		if !json.Valid(arr[:n]) {
			t.Fatalf("fast path accepted %q, which is not JSON", arr[:n])
		}
	})
}

// TestSetUintMatchesSet holds the converter's fast path for integers the scanner parsed to the
// general conversion: same values, and the edge cases left to set (which reports them).
func TestSetUintMatchesSet(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 512, 1 << 40, 1<<40 + 1, 9223372036, 9223372037, 9223372036854, 9223372036855, 999999999999999999}
	for _, unit := range []int64{1, 1e3, 1e6, 1e9} {
		for _, f := range []int{fTimestamp, fPrompt, fOutput, fTurn, fSession, fHashes} {
			for _, v := range vals {
				c := converter{unitNs: unit}
				var fast, slow row
				ok := c.setUint(&fast, f, v)
				err := c.set(&slow, f, kNumber, strconv.AppendUint(nil, v, 10))
				if ok && (err != nil || !reflect.DeepEqual(fast, slow)) {
					t.Errorf("unit %d field %s value %d: fast path %+v, set %+v, %v", unit, Fields[f], v, fast, slow, err)
				}
				if !ok && err == nil && f != fSession {
					t.Errorf("unit %d field %s value %d: fast path declined a value set accepts", unit, Fields[f], v)
				}
			}
		}
	}
}

// FuzzScannerFields holds the fields the scanner extracts (with its in-place key comparison
// and integer fast path) to encoding/json's reading of the same line: the same value for every
// mapped key, the last one when a key repeats, nothing for an absent key.
func FuzzScannerFields(f *testing.F) {
	f.Add([]byte(`{"timestamp": 5, "input_length": 1000, "output_length": 5, "hash_ids": [0, 1]}`))
	f.Add([]byte(`{"time\u0073tamp": 5, "timestamp": 7.5, "input_length": "x", "hash_ids": null, "hash_ids_": 3}`))
	f.Add([]byte(`{"timestampx": 1, "input_length": 012, "output_length": -3}`))
	m := presets[FormatMooncake].mapping
	f.Fuzz(func(t *testing.T, line []byte) {
		s := jsonScanner{paths: buildPaths(m)}
		if s.scan(line) != nil {
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatalf("scanner accepted %q, encoding/json: %v", line, err)
		}
		for fi, key := range m {
			if key == "" {
				continue
			}
			sp := s.vals[fi]
			raw, ok := obj[key]
			if !ok {
				if sp.kind != kMissing {
					t.Fatalf("%q: key %q absent, scanner found %q", line, key, line[sp.start:sp.end])
				}
				continue
			}
			got := line[sp.start:sp.end]
			if sp.kind == kString {
				got = line[sp.start-1 : sp.end+1]
			}
			if sp.kind == kArray && s.intsOK && fi == fHashes {
				got = line[sp.start:sp.end]
			}
			if string(got) != string(raw) {
				t.Fatalf("%q: key %q: scanner %q, encoding/json %q", line, key, got, raw)
			}
			if sp.isUint {
				if v, err := strconv.ParseUint(string(raw), 10, 64); err != nil || v != sp.num {
					t.Fatalf("%q: key %q: scanner's integer %d, text %q", line, key, sp.num, raw)
				}
			}
		}
	})
}
