package requestlog

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/trace"
)

// TestHeadersKeptCredentialsDropped: a line's headers object is kept, names lower-cased and
// sorted, a list joined; every credential-bearing header is dropped at ingest; a header of
// the wrong type is an error naming it.
func TestHeadersKeptCredentialsDropped(t *testing.T) {
	const sentinel = "sk-SENTINEL-7f3a"
	log := `{"timestamp":0,"headers":{"X-Session-ID":"s1","priority":3,"Accept":["a","b"],` +
		`"Authorization":"Bearer ` + sentinel + `","Cookie":"c=` + sentinel + `","x-api-key":"` + sentinel + `","X-Upstream-Token":"` + sentinel + `"},` +
		`"request":{"prompt":"hello"},"response":{"usage":{"completion_tokens":1}}}` + "\n"
	reqs, _, err := readAll(t, log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := reqs[0].Record.Headers
	want := []trace.Header{{Name: "accept", Value: "a, b"}, {Name: "priority", Value: "3"}, {Name: "x-session-id", Value: "s1"}}
	if len(got) != len(want) {
		t.Fatalf("headers %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("header %d: %v, want %v", i, got[i], want[i])
		}
	}
	for _, h := range got {
		if strings.Contains(h.Value, sentinel) {
			t.Errorf("credential kept: %v", h)
		}
	}
	if v, ok := reqs[0].Record.HeaderValue("X-SESSION-id"); !ok || v != "s1" {
		t.Errorf("HeaderValue = %q %v", v, ok)
	}
	_, _, err = readAll(t, `{"timestamp":0,"headers":{"x-a":{"b":1}},"request":{"prompt":"hello"},"response":{"usage":{"completion_tokens":1}}}`+"\n", Options{})
	if err == nil || !strings.Contains(err.Error(), "headers.x-a") || !strings.Contains(err.Error(), "log.jsonl:1") {
		t.Errorf("bad header value: %v", err)
	}
}
