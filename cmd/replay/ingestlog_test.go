package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/trace"
)

// ingestLogSample is a tiny OpenAI-compatible request log: a chat, its next turn, a completion.
const ingestLogSample = `{"timestamp":"2026-03-01T09:00:00Z","request":{"model":"mistral-7b","messages":[{"role":"user","content":"Summarize the plot of Hamlet in two sentences, please."}],"max_tokens":100},"response":{"choices":[{"message":{"role":"assistant","content":"Prince Hamlet seeks revenge on his uncle Claudius for murdering his father. Nearly everyone dies."}}]}}
{"timestamp":1772355601.5,"request":"{\"model\":\"mistral-7b\",\"prompt\":\"Once upon a time in a land far away there lived a secretive dragon named Zorblax\",\"max_tokens\":20}","response":{"usage":{"completion_tokens":20}}}
{"timestamp":"2026-03-01T09:00:03Z","request":{"model":"mistral-7b","messages":[{"role":"user","content":"Summarize the plot of Hamlet in two sentences, please."},{"role":"assistant","content":"Prince Hamlet seeks revenge on his uncle Claudius for murdering his father. Nearly everyone dies."},{"role":"user","content":"Now as a limerick."}],"max_tokens":100},"response":{"usage":{"completion_tokens":41}}}
`

// TestIngestRequestLog runs the contract form `replay ingest --trace LOG --format openai-log
// --tokenizer FILE --export mooncake --out FILE.jsonl`, and the Parquet and auto-detected forms.
func TestIngestRequestLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "gateway.jsonl")
	if err := os.WriteFile(log, []byte(ingestLogSample), 0o644); err != nil {
		t.Fatal(err)
	}
	tok := testenv.SampleTokenizer()
	moon := filepath.Join(dir, "m.jsonl")
	code, stdout, stderr := runCLI(t, "ingest", "--trace", log, "--format", "openai-log", "--tokenizer", tok, "--block-size", "16", "--export", "mooncake", "--out", moon)
	if code != 0 || stdout != `{"records":3,"rejected":0}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	raw, err := os.ReadFile(moon)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"Hamlet", "Zorblax", "limerick", "mistral"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("export holds %q:\n%s", secret, raw)
		}
	}
	type line struct {
		Timestamp    int64 `json:"timestamp"`
		InputLength  int   `json:"input_length"`
		OutputLength int   `json:"output_length"`
		HashIDs      []int `json:"hash_ids"`
	}
	var lines []line
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 3 || lines[0].Timestamp != 0 || lines[1].Timestamp != 1500 || lines[2].Timestamp != 3000 || lines[1].OutputLength != 20 || lines[2].OutputLength != 41 {
		t.Fatalf("export: %+v", lines)
	}
	// The next turn extends the first: its hashes start with the first's (renumbered from 0).
	first, third := lines[0], lines[2]
	if len(first.HashIDs) != first.InputLength/16 || len(third.HashIDs) != third.InputLength/16 || len(first.HashIDs) == 0 || third.HashIDs[0] != 0 || third.InputLength <= first.InputLength {
		t.Fatalf("hashes: %+v", lines)
	}
	for i := range first.HashIDs {
		if third.HashIDs[i] != first.HashIDs[i] {
			t.Fatalf("turn 2 does not share turn 1's blocks: %+v", lines)
		}
	}

	// Auto-detected, to Parquet: sessions recovered, no text.
	pq := filepath.Join(dir, "t.parquet")
	code, stdout, stderr = runCLI(t, "ingest", "--trace", log, "--tokenizer", tok, "--out", pq)
	if code != 0 || stdout != `{"records":3,"rejected":0}`+"\n" {
		t.Fatalf("parquet: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	recs, err := trace.ReadAll(pq)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0].SessionID != recs[2].SessionID || recs[2].Turn != 1 || recs[1].SessionID == recs[0].SessionID || recs[0].PromptTokens != first.InputLength || recs[0].Model != "mistral-7b" {
		t.Fatalf("records %+v", recs)
	}
	if b, _ := os.ReadFile(pq); strings.Contains(string(b), "Hamlet") {
		t.Error("Parquet trace holds prompt text")
	}

	// The exported trace reads back with the Mooncake reader at the same block size.
	code, stdout, stderr = runCLI(t, "ingest", "--trace", moon, "--block-size", "16", "--stats", "--json")
	if code != 0 || !strings.Contains(stdout, `"records":3`) {
		t.Fatalf("re-ingest: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// --keep-text keeps it; a fixed --hash-key-file gives the same ids twice.
	key := filepath.Join(dir, "key")
	os.WriteFile(key, []byte("00112233445566778899aabbccddeeff\n"), 0o600)
	kept := filepath.Join(dir, "k.jsonl")
	if code, _, stderr := runCLI(t, "ingest", "--trace", log, "--tokenizer", tok, "--keep-text", "--hash-key-file", key, "--export", "mooncake", "--out", kept); code != 0 {
		t.Fatalf("--keep-text: %s", stderr)
	}
	if b, _ := os.ReadFile(kept); !strings.Contains(string(b), "Hamlet") || !strings.Contains(string(b), "[INST]") {
		t.Errorf("--keep-text output lacks the rendered prompt: %s", b)
	}

	// Errors: no tokenizer; a bad line names file:line and field.
	if code, _, stderr := runCLI(t, "ingest", "--trace", log, "--format", "openai-log", "--export", "mooncake", "--out", moon); code == 0 || !strings.Contains(stderr, "--tokenizer") {
		t.Errorf("no tokenizer: exit %d, %q", code, stderr)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(strings.Replace(ingestLogSample, `\"prompt\":`, `\"promp\":`, 1)), 0o644)
	out := filepath.Join(dir, "bad-out.jsonl")
	if code, _, stderr := runCLI(t, "ingest", "--trace", bad, "--format", "openai-log", "--tokenizer", tok, "--export", "mooncake", "--out", out); code == 0 || !strings.Contains(stderr, "bad.jsonl:2:") || !strings.Contains(stderr, `field "request"`) {
		t.Errorf("bad line: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed run left its output behind")
	}
	q := filepath.Join(dir, "q.jsonl")
	if code, stdout, stderr := runCLI(t, "ingest", "--trace", bad, "--format", "openai-log", "--tokenizer", tok, "--quarantine", q, "--export", "mooncake", "--out", out); code != 0 || stdout != `{"records":2,"rejected":1}`+"\n" {
		t.Errorf("--quarantine: exit %d, %q, %q", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "ingest", "--trace", ingestTestdata+"mooncake_small.jsonl", "--tokenizer", tok, "--out", pq); code == 0 || !strings.Contains(stderr, "are for request logs") {
		t.Errorf("--tokenizer on a Mooncake trace: exit %d, %q", code, stderr)
	}
}

// TestRequestLogCommands: the commands that read only records (cache-sim, synth) take a request
// log too, given the tokenizer, and say what is missing without it. cache-sim on the log gives
// the hit rate cache-sim gives on the log's Mooncake export.
func TestRequestLogCommands(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "gateway.jsonl")
	if err := os.WriteFile(log, []byte(ingestLogSample), 0o644); err != nil {
		t.Fatal(err)
	}
	tok := testenv.SampleTokenizer()
	code, _, stderr := runCLI(t, "cache-sim", "--trace", log)
	if code == 0 || !strings.Contains(stderr, "is a request log: reading it needs --tokenizer") {
		t.Fatalf("cache-sim without --tokenizer: exit %d, stderr %q", code, stderr)
	}
	moon := filepath.Join(dir, "m.jsonl")
	if code, _, stderr := runCLI(t, "ingest", "--trace", log, "--format", "openai-log", "--tokenizer", tok, "--block-size", "16", "--export", "mooncake", "--out", moon); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	code, fromLog, stderr := runCLI(t, "cache-sim", "--trace", log, "--tokenizer", tok)
	if code != 0 {
		t.Fatalf("cache-sim on the log: exit %d, %s", code, stderr)
	}
	code, fromExport, stderr := runCLI(t, "cache-sim", "--trace", moon, "--format", "mooncake", "--block-size", "16")
	if code != 0 || fromLog != fromExport || !strings.HasPrefix(fromLog, "hit rate ") || fromLog == "hit rate 0.0%\n" {
		t.Fatalf("cache-sim: %q on the log, %q on its export (exit %d, %s)", fromLog, fromExport, code, stderr)
	}
	out := filepath.Join(dir, "prompts.jsonl")
	if code, _, stderr := runCLI(t, "synth", "--trace", log, "--tokenizer", tok, "--out", out); code != 0 || !strings.Contains(stderr, "3 requests") {
		t.Fatalf("synth on the log: exit %d, %s", code, stderr)
	}
}

// ingestLogOptions is a request log with options: tools and a tool turn, a JSON schema, a
// cancelled request, fields the reader does not know.
const ingestLogOptions = `{"timestamp":0,"request":{"model":"qwen3","stream":false,"temperature":0.3,"stop":["END"],"metadata":{"team":"a"},"tools":[{"type":"function","function":{"name":"get_weather","description":"Look up the Zorblax weather service","parameters":{"type":"object","properties":{"city":{"type":"string","description":"Secret city codename"}}}}}],"messages":[{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"sunny"}]},"response":{"usage":{"completion_tokens":3},"choices":[{"message":{"content":"Sunny."},"finish_reason":"stop"}]}}
{"timestamp":1,"status":499,"duration_ms":2500,"request":{"model":"qwen3","messages":[{"role":"user","content":"Tell me a long story"}],"metadata":{"team":"b"},"logit_bias":{"1":2},"response_format":{"type":"json_schema","json_schema":{"name":"story","schema":{"type":"object","description":"A Hamletian tale","properties":{"text":{"type":"string"}}}}}}}
`

// TestIngestRequestLogOptions: the options travel through `replay ingest` of a request log
// into the Mooncake export and the normalized trace, without their descriptions unless
// --keep-text; a cancelled line is read; --stats lists the unknown request fields (and stderr
// notes them without it).
func TestIngestRequestLogOptions(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "gateway.jsonl")
	if err := os.WriteFile(log, []byte(ingestLogOptions), 0o644); err != nil {
		t.Fatal(err)
	}
	tok := testenv.Tokenizer(t, "qwen3")
	moon := filepath.Join(dir, "m.jsonl")
	code, stdout, stderr := runCLI(t, "ingest", "--trace", log, "--format", "openai-log", "--tokenizer", tok, "--export", "mooncake", "--out", moon)
	if code != 0 || stdout != `{"records":2,"rejected":0}`+"\n" || !strings.Contains(stderr, "metadata 2, logit_bias 1") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	raw, _ := os.ReadFile(moon)
	for _, secret := range []string{"Zorblax", "Secret city", "Hamletian", "Paris", "sunny"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("export holds %q:\n%s", secret, raw)
		}
	}
	for _, kept := range []string{`"options":{"api":"chat","stream":false,"temperature":0.3,"stop":["END"]`, `"name":"get_weather"`, `"status":499,"cancelled":true,"cancel_after_ms":2500`} {
		if !strings.Contains(string(raw), kept) {
			t.Errorf("export lacks %s:\n%s", kept, raw)
		}
	}
	pq := filepath.Join(dir, "t.parquet")
	if code, _, stderr := runCLI(t, "ingest", "--trace", moon, "--block-size", "16", "--out", pq); code != 0 {
		t.Fatalf("re-ingest: %s", stderr)
	}
	recs, err := trace.ReadAll(pq)
	if err != nil || len(recs) != 2 || recs[0].Options == nil || recs[0].Options.Tools == nil || !recs[1].Options.Cancelled {
		t.Fatalf("records %+v, %v", recs, err)
	}

	code, stdout, _ = runCLI(t, "ingest", "--trace", log, "--tokenizer", tok, "--stats")
	if code != 0 || !strings.Contains(stdout, "request fields carried as logged: metadata 2, logit_bias 1\n") {
		t.Fatalf("--stats: exit %d, %q", code, stdout)
	}
	code, stdout, _ = runCLI(t, "ingest", "--trace", log, "--tokenizer", tok, "--stats", "--json")
	if code != 0 || !strings.Contains(stdout, `"carried_request_fields":{"logit_bias":1,"metadata":2}`) {
		t.Fatalf("--stats --json: exit %d, %q", code, stdout)
	}
	kept := filepath.Join(dir, "k.jsonl")
	if code, _, stderr := runCLI(t, "ingest", "--trace", log, "--tokenizer", tok, "--keep-text", "--export", "mooncake", "--out", kept); code != 0 {
		t.Fatalf("--keep-text: %s", stderr)
	}
	if b, _ := os.ReadFile(kept); !strings.Contains(string(b), "Zorblax weather") || !strings.Contains(string(b), `"body":{"model":"qwen3"`) {
		t.Errorf("--keep-text export lacks the descriptions or the body: %s", b)
	}
}
