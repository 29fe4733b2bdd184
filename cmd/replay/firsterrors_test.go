package main

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// TestFirstContactErrors: the mistakes of a first run end in exit 1 with a message that names
// the fix, through the whole command: a CSV without the timestamp column names --map, a chat
// template's refusal names the message and quotes the template without the engine's trace,
// and an endpoint URL of the wrong scheme names the right one, against real loopback servers.
func TestFirstContactErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	csvTrace := write("calls.csv", "ts,prompt_tokens,output_tokens\n1,10,20\n")
	chatLog := write("chat.jsonl", `{"timestamp":1,"request":{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]},"response":{"usage":{"prompt_tokens":9,"completion_tokens":2}}}`+"\n")
	models := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	})
	plain := httptest.NewServer(models)
	defer plain.Close()
	tlsSrv := httptest.NewUnstartedServer(models)
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0)
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	runTo := func(url string) []string {
		return []string{"run", "--trace", csvTrace, "--map", "timestamp=ts", "--endpoint", url, "--model", "m",
			"--tokenizer", testenv.SampleTokenizer(), "--out", filepath.Join(dir, "out")}
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"csv without timestamp", []string{"ingest", "--trace", csvTrace, "--out", filepath.Join(dir, "t.parquet")},
			[]string{"calls.csv:1:", `no column "timestamp"`, "(columns: ts, prompt_tokens, output_tokens)", "pass --map timestamp=COLUMN"}},
		{"template refusal", []string{"ingest", "--trace", chatLog, "--format", "openai-log", "--tokenizer", testenv.SampleTokenizer(), "--out", filepath.Join(dir, "c.parquet")},
			[]string{"chat.jsonl:1:", "message 0 of 2 (role system)", `"only user and assistant roles are supported"`}},
		{"https at plain http", runTo(strings.Replace(plain.URL, "http://", "https://", 1) + "/v1"),
			[]string{"does not speak TLS", "use " + plain.URL + "/v1 instead"}},
		{"http at tls", runTo(strings.Replace(tlsSrv.URL, "https://", "http://", 1) + "/v1"),
			[]string{"speaks TLS", "use " + tlsSrv.URL + "/v1 instead"}},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1:\n%s", c.name, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: %q lacks %q", c.name, stderr, w)
			}
		}
		for _, bad := range []string{"ControlStructure", "--ca-file", "panic"} {
			if strings.Contains(stderr, bad) {
				t.Errorf("%s: %q holds %q", c.name, stderr, bad)
			}
		}
	}
}
