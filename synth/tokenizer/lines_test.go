package tokenizer

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestEncodeLines(t *testing.T) {
	tk, err := Load(filepath.Join("..", "..", "samples", "tokenizer", "mistral"))
	if err != nil {
		t.Fatal(err)
	}
	in := "{\"text\": \"Hello world\"}\n\n{\"text\": \"\"}\n"
	var out bytes.Buffer
	if err := EncodeLines(tk, strings.NewReader(in), &out, true, "stdin"); err != nil {
		t.Fatal(err)
	}
	// Reference: node .cache/tokref/encode.js samples/tokenizer/mistral/tokenizer.json --special
	if got, want := out.String(), "[1,22557,1526]\n[1]\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"{\"text\": \"a\"}\n{\"text\": 3}\n", "{\"text\": \"a\"}\n{\"txt\": \"b\"}\n", "{\"text\": \"a\"}\nnot json\n"} {
		out.Reset()
		err := EncodeLines(tk, strings.NewReader(bad), &out, false, "stdin")
		if err == nil || !strings.HasPrefix(err.Error(), "stdin:2: ") {
			t.Errorf("%q: got error %v, want one naming stdin:2", bad, err)
		}
		if out.String() != "[264]\n" { // "a" is 264
			t.Errorf("%q: the line before the bad one was not written: %q", bad, out.String())
		}
	}
}
