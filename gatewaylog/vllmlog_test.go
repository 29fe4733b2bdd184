package gatewaylog

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// TestVLLMLog reads the server-log fixture: arrivals from the received lines' month-day
// times (coloured, plain, with and without milliseconds, behind the APIServer tag), the
// prompt count from the id list on the received line or on the DEBUG details line before it,
// or from prompt_embeds' shape; interleaved requests' generated lines joined by id (n=2's two
// choices summed, a stream's deltas summed when its complete line has no ids); the LoRA name
// as the model; a pooling request as embeddings; the /health and /metrics access lines
// skipped; the received line with no prompt count at INFO and the malformed params rejected.
func TestVLLMLog(t *testing.T) {
	checkRecords(t, "vllm-log.log", "vllm-log", []want{
		{0, 10, 0, -1, "", trace.APIChat, "", 256},
		{1251 * time.Millisecond, 5, 5, -1, "sql-adapter", "", "false", 64},
		{1400 * time.Millisecond, 8, 3, -1, "", trace.APIChat, "true", 512},
		{2 * time.Second, 2, 0, -1, "", "", "", 16},
		{3500 * time.Millisecond, 7, 0, -1, "", "", "", 256},
		{4 * time.Second, 4, 0, -1, "", trace.APIEmbeddings, "", 0},
	}, 2, 2)

	path := filepath.Join("testdata", "vllm-log.log")
	recs, counts, err := ingest.ReadAll(path, ingest.Options{Format: "vllm-log", OnError: ingest.OnErrorSkip})
	if err != nil {
		t.Fatal(err)
	}
	if counts.OutputUnknown != 3 {
		t.Errorf("output unknown %d, want 3 (the two received lines without generated lines and the embeds one)", counts.OutputUnknown)
	}
	o := recs[0].Options
	if *o.Temperature != 0.7 || *o.TopP != 0.9 || *o.Seed != 42 || o.N != 1 || !reflect.DeepEqual(o.Stop, []string{"\n\n", "END"}) {
		t.Errorf("first request's sampling: %+v", o)
	}
	if o := recs[1].Options; o.N != 2 || o.Seed != nil || o.Stop != nil || o.FinishReason != "stop" {
		t.Errorf("n=2 request: %+v", o)
	}
	if o := recs[2].Options; *o.Seed != -7 || o.FinishReason != "stop" {
		t.Errorf("streamed request: seed %v, finish %q", o.Seed, o.FinishReason)
	}
	msgs := strings.Join(counts.Errors, "\n")
	if !strings.Contains(msgs, "vllm-log.log:15") || !strings.Contains(msgs, "prompt_token_ids") || !strings.Contains(msgs, "DEBUG") {
		t.Errorf("the INFO-only received line: %s", msgs)
	}
	_, _, err = ingest.ReadAll(path, ingest.Options{Format: "vllm-log"})
	if err == nil || !strings.Contains(err.Error(), "vllm-log.log:19") || !strings.Contains(err.Error(), `"params"`) {
		t.Errorf("a malformed params repr: %v", err)
	}
}

// TestParsePyRepr reads the repr forms the logs print.
func TestParsePyRepr(t *testing.T) {
	v, err := ParsePyRepr(`Size(n=1, t=1e-05, s=['a\'b', "c\"d\n", '\x41\u00e9'], d={0: -1.5, 'k': (1, 2,)}, e=<E.A: 1>, x=None, b=True, i=-inf, p=torch.Size([3, 4]))`)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m[pyCallName] != "Size" || !reflect.DeepEqual(m["s"], []any{"a'b", "c\"d\n", "Aé"}) || m["x"] != nil || m["b"] != true || m["e"] != pyOpaque("<E.A: 1>") {
		t.Errorf("read %#v", m)
	}
	for _, bad := range []string{`[1, 2`, `'open`, `{1: }`, `f(a=)`, `'\q'`, `1 2`, strings.Repeat("[", 500)} {
		if _, err := ParsePyRepr(bad); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
}

// FuzzPyRepr feeds the repr reader anything: it must not panic, and what it reads whole it
// reads again the same from a copy with a suffix, as a prefix.
func FuzzPyRepr(f *testing.F) {
	f.Add(`SamplingParams(n=1, temperature=0.7, stop=['\n'], seed=None, max_tokens=16)`)
	f.Add(`[151644, 872, 198]`)
	f.Add(`StructuredOutputsParams(json={'type': 'object'}, _backend=None), extra=<RequestOutputKind.DELTA: 1>`)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePyRepr(s)
		_, n, perr := readPyPrefix(s + ", tail")
		if err == nil && (perr != nil || n > len(s)) {
			t.Errorf("%q read whole (%v) but not as a prefix: %v at %d", s, v, perr, n)
		}
	})
}
