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
	if _, err := os.Stat(filepath.Join(p, "tokenizer_config.json")); err != nil {
		t.Fatalf("the chat template's tokenizer_config.json: %v", err)
	}
	if _, err := Extract("missing.csv", dir); err == nil {
		t.Fatal("extracting a missing file succeeded")
	}
}
