package genlog

import (
	"bytes"
	"reflect"
	"testing"
)

// TestPrefix: a shorter log is a prefix of a longer one, with its truths, for the plain log
// and the log with options; the two differ.
func TestPrefix(t *testing.T) {
	for _, options := range []bool{false, true} {
		var short, long bytes.Buffer
		ts, err1 := GenerateWith(&short, 300, Config{Seed: 3, Options: options})
		tl, err2 := GenerateWith(&long, 700, Config{Seed: 3, Options: options})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.HasPrefix(long.Bytes(), short.Bytes()) || !reflect.DeepEqual(ts, tl[:300]) {
			t.Fatalf("options %v: the 300-request log is not the start of the 700-request one", options)
		}
	}
	var plain, opts bytes.Buffer
	Generate(&plain, 50, 3)
	GenerateWith(&opts, 50, Config{Seed: 3, Options: true})
	if bytes.Equal(plain.Bytes(), opts.Bytes()) {
		t.Fatal("options changed nothing")
	}
}
