package samples

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExtract(t *testing.T) {
	dir := t.TempDir()
	p, err := Extract(Tokenizer, dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(p, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 1<<20 {
		t.Fatalf("tokenizer.json is %d bytes, want the full 32k vocabulary (>1 MiB)", st.Size())
	}
	tr, err := Extract(DefaultTrace, dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:len("TIMESTAMP,")]) != "TIMESTAMP," {
		t.Fatalf("default trace starts %q, want the Azure CSV header", b[:20])
	}
	if _, err := Extract("missing.csv", dir); err == nil {
		t.Fatal("extracting a missing file succeeded")
	}
}
