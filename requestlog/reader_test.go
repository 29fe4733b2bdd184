package requestlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/trace"
)

// readAll ingests log text with the committed Mistral tokenizer (default chat template).
func readAll(t *testing.T, log string, opts Options) ([]Request, Counts, error) {
	t.Helper()
	m, ok := models.Load("sample")
	if !ok {
		tok, chat, err := LoadModel(testenv.SampleTokenizer())
		if err != nil {
			t.Fatal(err)
		}
		m = model{tok, chat}
		models.Store("sample", m)
	}
	opts.Tokenizer, opts.Chat = m.(model).tok, m.(model).chat
	if opts.HashKey == nil {
		opts.HashKey = testKey
	}
	r, err := NewReader(strings.NewReader(log), "log.jsonl", opts)
	if err != nil {
		return nil, Counts{}, err
	}
	var out []Request
	for {
		req, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r.Counts(), nil
		}
		if err != nil {
			return out, r.Counts(), err
		}
		out = append(out, req)
	}
}

func sampleModel(t *testing.T) model {
	readAll(t, `{"timestamp":0,"request":{"prompt":"x"},"response":{"usage":{"completion_tokens":1}}}`, Options{})
	m, _ := models.Load("sample")
	return m.(model)
}

// TestReadShapes: chat and completion bodies, bodies logged as strings, content parts, token id
// prompts, output counts from usage or from the text, both timestamp kinds.
func TestReadShapes(t *testing.T) {
	m := sampleModel(t)
	log := `{"timestamp":"2026-01-01T00:00:00Z","request":{"model":"m1","messages":[{"role":"user","content":"Hello there"}]},"response":{"choices":[{"message":{"content":"General Kenobi"}}]}}
{"timestamp":1767225600.25,"request":"{\"model\":\"m2\",\"prompt\":\"Once upon a time\"}","response":{"usage":{"prompt_tokens":5,"completion_tokens":7},"choices":[{"text":"ignored when usage says"}]}}

{"timestamp":"1767225601","request":{"messages":[{"role":"user","content":[{"type":"text","text":"Hello"},{"type":"text","text":"there"}]}]},"response":"{\"choices\":[{\"message\":{\"content\":\"Hi\"}}]}"}
{"timestamp":"2026-01-01T00:00:02Z","request":{"prompt":[1,415,2936]},"response":{"usage":{"completion_tokens":3}}}
`
	reqs, counts, err := readAll(t, log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 4 || counts.Records != 4 || counts.UsageChecked != 1 {
		t.Fatalf("%d records, counts %+v", len(reqs), counts)
	}
	chat := func(content string) int {
		text, err := m.chat.Render([]chat.Message{{Role: "user", Content: content}})
		if err != nil {
			t.Fatal(err)
		}
		return len(m.tok.Encode(text, false))
	}
	want := []struct {
		prompt, output int
		at             time.Duration
		model          string
		line           int64
	}{
		{chat("Hello there"), len(m.tok.Encode("General Kenobi", false)), 0, "m1", 1},
		{len(m.tok.Encode("Once upon a time", true)), 7, 250 * time.Millisecond, "m2", 2},
		{chat("Hello\nthere"), len(m.tok.Encode("Hi", false)), time.Second, "", 4},
		{3, 3, 2 * time.Second, "", 5},
	}
	for i, w := range want {
		r := reqs[i]
		if r.PromptTokens != w.prompt || r.OutputTokens != w.output || r.Timestamp != w.at || r.Model != w.model || r.Line != w.line {
			t.Errorf("record %d: %+v, want prompt %d output %d at %v model %q line %d", i, r.Record, w.prompt, w.output, w.at, w.model, w.line)
		}
		if r.Prompt != "" || r.Response != "" {
			t.Errorf("record %d kept text without KeepText", i)
		}
	}
	if reqs[1].UsagePromptTokens != 5 || counts.UsageMismatches != map[bool]int64{true: 0, false: 1}[reqs[1].PromptTokens == 5] {
		t.Errorf("usage %d, mismatches %d", reqs[1].UsagePromptTokens, counts.UsageMismatches)
	}
}

// TestReadErrors: each bad line names the file, the line and the field, and --on-error skip
// quarantines it.
func TestReadErrors(t *testing.T) {
	ok := `{"timestamp":10,"request":{"prompt":"a"},"response":{"usage":{"completion_tokens":1}}}`
	cases := []struct {
		line string
		want []string
	}{
		{`{"timestamp":11,"request":{"prompt":"a"}`, []string{"log.jsonl:2:", "not a JSON object"}},
		{`{"request":{"prompt":"a"},"response":{"usage":{"completion_tokens":1}}}`, []string{"log.jsonl:2:", `field "timestamp": missing`, "pass --map timestamp=KEY"}},
		{`{"timestamp":"yesterday","request":{"prompt":"a"},"response":{"usage":{"completion_tokens":1}}}`, []string{`field "timestamp"`, "neither RFC3339 nor a number"}},
		{`{"timestamp":9,"request":{"prompt":"a"},"response":{"usage":{"completion_tokens":1}}}`, []string{`field "timestamp"`, "out of order"}},
		{`{"timestamp":11,"request":{"model":"x"},"response":{"usage":{"completion_tokens":1}}}`, []string{`field "request"`, "neither messages"}},
		{`{"timestamp":11,"request":{"messages":[{"content":"hi"}]},"response":{"usage":{"completion_tokens":1}}}`, []string{`field "request.messages[0].role"`}},
		{`{"timestamp":11,"request":{"messages":[{"role":"user","content":[{"type":"image_url"}]}]},"response":{"usage":{"completion_tokens":1}}}`, []string{`field "request.messages[0].content[0].image_url"`, "missing"}},
		{`{"timestamp":11,"request":{"prompt":"a"},"response":{"usage":{"completion_tokens":-4}}}`, []string{`field "response.usage.completion_tokens"`}},
		{`{"timestamp":11,"request":{"prompt":"a"},"response":{}}`, []string{`field "response"`, "output length is unknown"}},
		{`{"timestamp":11,"request":"{not json","response":{}}`, []string{`field "request"`}},
		{`{"timestamp":11,"request":{"messages":[{"role":"system","content":"s"}]},"response":{"usage":{"completion_tokens":1}}}`, []string{`field "request.messages"`, `template raised an exception at message 0 of 1 (role system): "only user and assistant roles are supported"`}},
		{`[1,2]`, []string{"log.jsonl:2:", "not a JSON object"}},
	}
	for _, c := range cases {
		_, _, err := readAll(t, ok+"\n"+c.line+"\n", Options{})
		var re *ingest.RowError
		if !errors.As(err, &re) {
			t.Errorf("%s: error %v, want a RowError", c.line, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.line, err, w)
			}
		}
		var q bytes.Buffer
		reqs, counts, err := readAll(t, ok+"\n"+c.line+"\n"+strings.Replace(ok, "10", "12", 1)+"\n", Options{OnError: ingest.OnErrorSkip, Quarantine: &q})
		if err != nil || len(reqs) != 2 || counts.Rejected != 1 || q.String() != c.line+"\n" || len(counts.Errors) != 1 {
			t.Errorf("%s: skip: %d records, counts %+v, quarantine %q, %v", c.line, len(reqs), counts, q.String(), err)
		}
	}
	if _, _, err := readAll(t, "\n\n", Options{}); !errors.Is(err, ingest.ErrEmpty) {
		t.Errorf("empty log: %v", err)
	}
}

// TestMapAndSessions: --map moves the fields; a logged session id becomes a keyed pseudonym
// with turns counted; without one, chat turns are chained by content.
func TestMapAndSessions(t *testing.T) {
	log := `{"meta":{"ts":1000,"sid":"alice-1"},"body":{"prompt":"a b c"},"resp":{"usage":{"completion_tokens":2}}}
{"meta":{"ts":1500,"sid":"alice-1"},"body":{"prompt":"a b c d"},"resp":{"usage":{"completion_tokens":2}}}
{"meta":{"ts":2000,"sid":"bob"},"body":{"prompt":"x"},"resp":{"usage":{"completion_tokens":2}}}
`
	reqs, _, err := readAll(t, log, Options{Map: map[string]string{"timestamp": "meta.ts", "request": "body", "response": "resp", "session_id": "meta.sid"}, TimeUnit: "ms"})
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].SessionID != reqs[1].SessionID || reqs[0].SessionID == reqs[2].SessionID || reqs[1].Turn != 1 || reqs[2].Turn != 0 || reqs[1].Timestamp != 500*time.Millisecond {
		t.Fatalf("mapped sessions: %+v", reqs)
	}
	if strings.Contains(reqs[0].SessionID, "alice") {
		t.Errorf("session id %q leaks the logged one", reqs[0].SessionID)
	}
	other, _, err := readAll(t, log, Options{Map: map[string]string{"timestamp": "meta.ts", "request": "body", "response": "resp", "session_id": "meta.sid"}, HashKey: []byte("another key, also long enough")})
	if err != nil || other[0].SessionID == reqs[0].SessionID {
		t.Errorf("pseudonyms do not depend on the key: %q %q %v", other[0].SessionID, reqs[0].SessionID, err)
	}
	if _, _, err := readAll(t, log, Options{Map: map[string]string{"prompt_tokens": "x"}}); err == nil || !strings.Contains(err.Error(), `unknown field "prompt_tokens"`) {
		t.Errorf("unknown mapped field: %v", err)
	}

	// Chained chat turns; a changed answer breaks the chain; another user starts anew.
	chat := `{"timestamp":1,"request":{"messages":[{"role":"user","content":"Q1"}]},"response":{"choices":[{"message":{"content":"A1"}}]}}
{"timestamp":2,"request":{"messages":[{"role":"user","content":"Q1"},{"role":"assistant","content":"A1"},{"role":"user","content":"Q2"}]},"response":{"choices":[{"message":{"content":"A2"}}]}}
{"timestamp":3,"request":{"messages":[{"role":"user","content":"Q1"},{"role":"assistant","content":"A1 edited"},{"role":"user","content":"Q2"}]},"response":{"usage":{"completion_tokens":1}}}
{"timestamp":4,"request":{"messages":[{"role":"user","content":"Q1"},{"role":"assistant","content":"A1"},{"role":"user","content":"Q2"},{"role":"assistant","content":"A2"},{"role":"user","content":"Q3"}]},"response":{"usage":{"completion_tokens":1}}}
{"timestamp":5,"request":{"user":"u2","messages":[{"role":"user","content":"Q1"},{"role":"assistant","content":"A1"},{"role":"user","content":"Q2"}]},"response":{"usage":{"completion_tokens":1}}}
{"timestamp":6,"request":{"messages":[{"role":"user","content":"R1"}]},"response":{"choices":[{"message":{"content":"<think>\nhmm\n</think>\n\nB1"}}]}}
{"timestamp":7,"request":{"messages":[{"role":"user","content":"R1"},{"role":"assistant","content":"B1"},{"role":"user","content":"R2"}]},"response":{"usage":{"completion_tokens":1}}}
`
	reqs, counts, err := readAll(t, chat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(reqs))
	for i, r := range reqs {
		got[i] = r.SessionID + "/" + string(rune('0'+r.Turn))
	}
	want := []string{"s1/0", "s1/1", "s2/0", "s1/2", "s3/0", "s4/0", "s4/1"}
	if strings.Join(got, " ") != strings.Join(want, " ") || counts.Sessions != 4 {
		t.Errorf("sessions %v, want %v (counts %+v)", got, want, counts)
	}
}

// TestBlocks: only whole blocks are hashed, the chain depends on the key, a chain continued
// after an earlier prompt is the chain hashed from scratch, and the Mooncake
// export renumbers hashes densely in order of first appearance.
func TestBlocks(t *testing.T) {
	ids := make([]int, 40)
	for i := range ids {
		ids[i] = 100 + i
	}
	h1, _ := newBlockHasher(testKey)
	h2, _ := newBlockHasher([]byte("a different key of enough bytes"))
	a, b := h1.hashes(ids, 16), h2.hashes(ids, 16)
	if len(a) != 2 || a[0] == b[0] || h1.hashes(ids[:15], 16) != nil {
		t.Fatalf("hashes %x / %x", a, b)
	}
	if ref := refHashes(testKey, ids, 16); ref[0] != a[0] || ref[1] != a[1] {
		t.Fatalf("hashes %x, reference %x", a, ref)
	}
	// After an earlier prompt: the blocks both share are copied, the rest hashed; the chain is
	// the one hashed from scratch.
	ids2 := append(append([]int(nil), ids[:20]...), 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)
	ref2 := refHashes(testKey, ids2, 16)
	after := h1.hashesAfter(ids2, 16, ids, a)
	if len(after) != 2 || after[0] != a[0] || after[1] != ref2[1] || after[1] == a[1] {
		t.Fatalf("chain after an earlier prompt %x, want %x", after, ref2)
	}
	if got := h1.hashesAfter(ids, 16, ids[:16], a[:1]); got[0] != a[0] || got[1] != a[1] {
		t.Fatalf("chain extending an earlier prompt %x, want %x", got, a)
	}
	var buf bytes.Buffer
	w := NewMooncakeWriter(&buf)
	for i, hs := range [][]uint64{{9, 7}, {9, 7, 5}, {3}} {
		if err := w.Write(Request{Record: tracedRecord(i, hs)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"timestamp":0,"input_length":32,"output_length":1,"hash_ids":[0,1]}
{"timestamp":1500,"input_length":48,"output_length":1,"hash_ids":[0,1,2]}
{"timestamp":3000,"input_length":16,"output_length":1,"hash_ids":[3]}
`
	if buf.String() != want {
		t.Errorf("mooncake:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func tracedRecord(i int, hs []uint64) trace.Record {
	return trace.Record{Timestamp: time.Duration(i) * 1500 * time.Millisecond, PromptTokens: 16 * len(hs), OutputTokens: 1, BlockHashes: hs, BlockSize: 16}
}

// TestRepeatedRequests: a request repeated (within a batch and across batches) reads exactly as
// its first copy, from the prompt cache, and message lists that concatenate alike do not share
// a cache entry.
func TestRepeatedRequests(t *testing.T) {
	line := func(i int, a, b string) string {
		return fmt.Sprintf(`{"timestamp":%d,"request":{"messages":[{"role":"user","content":%q},{"role":"assistant","content":%q},{"role":"user","content":"and then?"}]},"response":{"usage":{"completion_tokens":1}}}`+"\n", i, a, b)
	}
	long := strings.Repeat("a fairly long question about the weather and the sea ", 8)
	var log strings.Builder
	for i := range 3 * batchLines {
		if i%2 == 0 {
			log.WriteString(line(i, long, "sure"))
		} else {
			log.WriteString(line(i, long+"s", "ure")) // the same bytes, cut elsewhere
		}
	}
	reqs, _, err := readAll(t, log.String(), Options{KeepText: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3*batchLines || reqs[0].Prompt == reqs[1].Prompt {
		t.Fatalf("%d records; prompts 0 and 1 equal: %v", len(reqs), reqs[0].Prompt == reqs[1].Prompt)
	}
	m := sampleModel(t)
	for i, r := range reqs {
		first := reqs[i%2]
		want := len(m.tok.Encode(first.Prompt, false))
		if r.Prompt != first.Prompt || r.PromptTokens != want || fmt.Sprint(r.BlockHashes) != fmt.Sprint(first.BlockHashes) {
			t.Fatalf("record %d: %d tokens, hashes %x; want %d tokens, hashes %x", i, r.PromptTokens, r.BlockHashes, want, first.BlockHashes)
		}
	}
	a, _ := messagesKey(nil, nil, nil, []chat.Message{{Role: "user", Content: "ab"}, {Role: "user", Content: "c"}})
	b, _ := messagesKey(nil, nil, nil, []chat.Message{{Role: "user", Content: "a"}, {Role: "user", Content: "bc"}})
	if bytes.Equal(a, b) {
		t.Fatal("two message lists share a cache key")
	}
}
