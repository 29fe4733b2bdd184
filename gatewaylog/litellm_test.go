package gatewaylog

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// want is one record a fixture must read to.
type want struct {
	at             time.Duration
	prompt, output int
	cached         int // -1: none logged
	model, api     string
	stream         string // "true", "false" or "" (not logged)
	maxTokens      int
}

// checkRecords reads a fixture through ingest.Open in format (and auto-detected) and holds
// each record to want, the skipped and rejected counts to theirs.
func checkRecords(t *testing.T, file, format string, wants []want, skipped, rejected int64) {
	t.Helper()
	path := filepath.Join("testdata", file)
	for _, f := range []string{format, ingest.FormatAuto} {
		recs, counts, err := ingest.ReadAll(path, ingest.Options{Format: f, OnError: ingest.OnErrorSkip})
		if err != nil {
			t.Fatalf("%s as %s: %v", file, f, err)
		}
		if len(recs) != len(wants) || counts.Skipped != skipped || counts.Rejected != rejected {
			t.Fatalf("%s as %s: %d records, %d skipped, %d rejected (%v); want %d, %d, %d", file, f, len(recs), counts.Skipped, counts.Rejected, counts.Errors, len(wants), skipped, rejected)
		}
		for i, w := range wants {
			r := recs[i]
			if got := recordLine(r); got != w.String() {
				t.Errorf("%s record %d: %s\nwant %s", file, i, got, w)
			}
		}
	}
}

func (w want) String() string {
	return strings.Join([]string{w.at.String(), itoa(w.prompt), itoa(w.output), itoa(w.cached), w.model, w.api, w.stream, itoa(w.maxTokens)}, " | ")
}

func recordLine(r trace.Record) string {
	o := r.Options
	if o == nil {
		o = &trace.Options{}
	}
	cached, stream := -1, ""
	if o.CachedTokens != nil {
		cached = *o.CachedTokens
	}
	if o.Stream != nil {
		stream = map[bool]string{true: "true", false: "false"}[*o.Stream]
	}
	return want{r.Timestamp, r.PromptTokens, r.OutputTokens, cached, r.Model, o.API, stream, o.MaxTokens}.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestLiteLLM reads the StandardLoggingPayload fixture: float epoch starts to the
// microsecond, in arrival order (the Messages call started before the embedding it was logged
// after), cached tokens from OpenAI's and Anthropic's usage shapes and from a response held as
// a string (none there), the MCP tool call skipped, the bad count rejected.
func TestLiteLLM(t *testing.T) {
	checkRecords(t, "litellm.jsonl", "litellm", []want{
		{0, 1200, 80, 1024, "qwen3-8b", trace.APIChat, "true", 256},
		{652629 * time.Microsecond, 400, 20, -1, "hosted_vllm/Qwen/Qwen3-8B", trace.APICompletions, "", 32},
		{2152629 * time.Microsecond, 900, 60, 300, "claude-sonnet-4-5", trace.APIMessages, "false", 1024},
		{2402629 * time.Microsecond, 64, 0, -1, "bge-m3", trace.APIEmbeddings, "", 0},
	}, 1, 1)
	checkRejected(t, "litellm.jsonl", "litellm", 6, "prompt_tokens")
}

// TestLiteLLMSpendLogs reads LiteLLM_SpendLogs rows exported as JSON lines: ISO startTime
// strings (zoneless as psql writes them, with +00:00 and Z as the API does, and with a space),
// in arrival order; cached tokens from metadata's usage_object, from additional_usage_values
// (OpenAI's and Anthropic's shapes), metadata held as a string and as an object, none where the
// usage has none; stream and caps from proxy_server_request held as a string and as an object,
// none where it is "{}"; a LiteLLM cache hit and an MCP tool call skipped; a bad count rejected.
func TestLiteLLMSpendLogs(t *testing.T) {
	checkRecords(t, "litellm-spendlogs.jsonl", "litellm", []want{
		{0, 1200, 80, 1024, "qwen3-8b", trace.APIChat, "true", 256},
		{653 * time.Millisecond, 400, 20, -1, "hosted_vllm/Qwen/Qwen3-8B", trace.APICompletions, "", 32},
		{2153 * time.Millisecond, 900, 60, 300, "claude-sonnet-4-5", trace.APIMessages, "", 0},
		{2403 * time.Millisecond, 64, 0, -1, "bge-m3", trace.APIEmbeddings, "", 0},
	}, 2, 1)
	checkRejected(t, "litellm-spendlogs.jsonl", "litellm", 7, "prompt_tokens")
}

// checkRejected: read strictly (--on-error fail), file's first bad record stops the read with
// an error naming the file, its line and the field.
func checkRejected(t *testing.T, file, format string, line int, field string) {
	t.Helper()
	_, _, err := ingest.ReadAll(filepath.Join("testdata", file), ingest.Options{Format: format})
	if err == nil || !strings.Contains(err.Error(), file+":"+itoa(line)) || !strings.Contains(err.Error(), `"`+field+`"`) {
		t.Errorf("%s: a bad record: %v, want line %d and field %q named", file, err, line, field)
	}
}
