package gatewaylog

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// TestSGLangLog reads the JSON request-log fixture: starts are the finished line's time less
// e2e_latency, exact to the microsecond, in arrival order (b2e4 finished first but started
// later); received lines left out uncounted; the cap from max_new_tokens; an embedding request
// (no completion_tokens); a finished line without its latency rejected.
func TestSGLangLog(t *testing.T) {
	checkRecords(t, "sglang-log.jsonl", "sglang-log", []want{
		{0, 320, 220, 80, "", "", "true", 256},
		{902629 * time.Microsecond, 64, 8, 0, "", "", "false", 0},
		{2152629 * time.Microsecond, 12, 0, -1, "", trace.APIEmbeddings, "", 0},
	}, 0, 1)
}

// TestSGLangLogText reads the text-form fixture (the default --log-requests-format): starts
// are the Finish line's time (to the second, or to the ms with SGLANG_LOG_MS) less
// e2e_latency, in arrival order; the GenerateReqInput repr's sampling_params and stream; a
// level-2 line with its text and output ids cut around " ... "; an EmbeddingReqInput;
// Receive, startup, batch-stats and uvicorn lines left out uncounted; a multimodal Finish line
// without out skipped; a line without its latency and a malformed repr rejected, named by line
// and field.
func TestSGLangLogText(t *testing.T) {
	checkRecords(t, "sglang-log.log", "sglang-log", []want{
		{0, 320, 220, 80, "", "", "true", 256},
		{250 * time.Millisecond, 64, 8, 0, "", "", "false", 8},
		{500 * time.Millisecond, 900, 2100, 512, "", "", "true", 4096},
		{3450 * time.Millisecond, 12, 0, -1, "", trace.APIEmbeddings, "", 0},
	}, 1, 2)

	path := filepath.Join("testdata", "sglang-log.log")
	recs, counts, err := ingest.ReadAll(path, ingest.Options{Format: "sglang-log", OnError: ingest.OnErrorSkip})
	if err != nil {
		t.Fatal(err)
	}
	if o := recs[0].Options; o.Temperature == nil || *o.Temperature != 0.7 || o.TopP == nil || *o.TopP != 0.95 {
		t.Errorf("a1f3's sampling: %+v", o)
	}
	msgs := strings.Join(counts.Errors, "\n")
	if !strings.Contains(msgs, "sglang-log.log:10") || !strings.Contains(msgs, "e2e_latency") {
		t.Errorf("the line without its latency: %s", msgs)
	}
	if !strings.Contains(msgs, "sglang-log.log:11") || !strings.Contains(msgs, `"obj"`) {
		t.Errorf("the malformed repr: %s", msgs)
	}
}

// TestSGLangLogMixed: the JSON form's lines amid the server's text lines (a stdout capture with
// --log-requests-target stdout) read as the JSON form, the text lines left out.
func TestSGLangLogMixed(t *testing.T) {
	line := func(r Record) (Entry, error) { return readSGLang(r) }
	e, err := line(Record{Raw: []byte(`{"timestamp": "2025-01-24T09:20:48.347371", "event": "request.finished", "rid": "a1f3", "obj": {"stream": true}, "out": {"meta_info": {"prompt_tokens": 3, "completion_tokens": 2, "e2e_latency": 0.5}}}`), Year: 2025})
	if err != nil || e.PromptTokens != 3 || e.Latency != 500*time.Millisecond {
		t.Errorf("JSON line: %+v, %v", e, err)
	}
	if _, err := line(Record{Raw: []byte(`[2025-01-24 09:20:50] Decode batch. #running-req: 1, #token: 40, token usage: 0.00`)}); err != ErrNotRecord {
		t.Errorf("a stats line: %v", err)
	}
	if _, err := line(Record{Raw: []byte(`{"timestamp": 1`)}); err == nil || !strings.Contains(err.Error(), "not a JSON record") {
		t.Errorf("a broken JSON line: %v", err)
	}
}

// TestPyElided: SGLang's cut values read as one value only where asked for; vLLM's reader
// still stops at " ... ".
func TestPyElided(t *testing.T) {
	v, n, err := readPyElided(`[1, 2] ... [8, 9], out=`)
	if err != nil || v != pyElided || n != len(`[1, 2] ... [8, 9]`) {
		t.Errorf("cut list: %v %d %v", v, n, err)
	}
	if _, n, err := readPyPrefix(`'ab' ... 'yz'`); err != nil || n != len(`'ab'`) {
		t.Errorf("plain reader: %d %v", n, err)
	}
	if _, _, err := readPyElided(`'ab' ... `); err == nil {
		t.Error("a cut value without its tail read")
	}
}
