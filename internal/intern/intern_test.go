package intern

import (
	"strconv"
	"testing"
	"unsafe"
)

func TestTable(t *testing.T) {
	var tab Table
	buf := []byte("llama")
	a := tab.String(buf)
	buf[0] = 'X' // the value must not share the caller's buffer
	b := tab.String([]byte("llama"))
	if a != "llama" || b != "llama" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Fatalf("got %q and %q, shared %v", a, b, unsafe.StringData(a) == unsafe.StringData(b))
	}
	for i := range Limit + 10 {
		tab.String([]byte(strconv.Itoa(i)))
	}
	if len(tab.m) != Limit {
		t.Fatalf("table holds %d strings, limit %d", len(tab.m), Limit)
	}
	if s := tab.String([]byte("new")); s != "new" {
		t.Fatalf("past the limit: %q", s)
	}
}
