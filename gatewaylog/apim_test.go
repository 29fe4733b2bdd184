package gatewaylog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// TestAPIM reads the API Management fixture: LLM records joined with their gateway records by
// CorrelationId, the arrival from the gateway's TimeGenerated (7 and 3 fractional digits, and
// the resource log's time with none), or from the LLM record's when the gateway record is not
// in the file; a request whose LLM records are split by SequenceNumber and come before its
// gateway record, out of order; the table and the diagnostic setting's properties-nested form;
// the cap from the logged request body and cached tokens from the response body, both JSON
// held in strings (a streamed body, not JSON, gives none); the API from the URL or the
// operation; plain API traffic and an MCP record skipped; a bad count rejected.
func TestAPIM(t *testing.T) {
	checkRecords(t, "apim.jsonl", "apim", []want{
		{0, 1500, 120, 1024, "gpt-4o-mini", trace.APIChat, "false", 300},
		{654629 * time.Microsecond, 40000, 350, -1, "gpt-4o", trace.APIChat, "true", 512},
		{1402629 * time.Microsecond, 200, 30, -1, "gpt-4o-mini", trace.APIChat, "", 0},
		{2152629 * time.Microsecond, 64, 0, -1, "text-embedding-3-small", trace.APIEmbeddings, "false", 0},
	}, 2, 1)
	checkRejected(t, "apim.jsonl", "apim", 13, "PromptTokens")
}

// TestAPIMRejoin: the chunks of a split message come back whole, in SequenceNumber order,
// whatever the file's order; the merged record carries the rest of its request.
func TestAPIMRejoin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "apim.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		rec, err := decodeRecord([]byte(line), 2025)
		if err != nil {
			t.Fatal(err)
		}
		rec.Line = int64(i + 1)
		recs = append(recs, rec)
	}
	var merged *Record
	for _, r := range joinAPIM(recs) {
		if id, _ := apimGet(r, "CorrelationId").String(); strings.HasSuffix(id, "000000000002") {
			merged = &r
		}
	}
	if merged == nil || merged.Line != 4 || len(merged.Parts) != 4 {
		t.Fatalf("request 2 not merged from its five records: %+v", merged)
	}
	msgs, _ := apimGet(*merged, "RequestMessages").String()
	var parsed []map[string]string
	if err := json.Unmarshal([]byte(msgs), &parsed); err != nil || len(parsed) != 1 || parsed[0]["role"] != "user" {
		t.Errorf("rejoined request messages %q: %v", msgs, err)
	}
	if n := strings.Count(string(merged.Raw), "\n") + 1; n != 5 {
		t.Errorf("merged raw holds %d lines, want 5", n)
	}
}

// TestAPIMPartError: a bad field of the gateway record is named, with the gateway record's line.
func TestAPIMPartError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "apim.jsonl")
	body := `{"TimeGenerated":"2025-01-24T09:20:46Z","CorrelationId":"x1","DeploymentName":"m","PromptTokens":3,"CompletionTokens":1,"Type":"ApiManagementGatewayLlmLog"}
{"TimeGenerated":"whenever","CorrelationId":"x1","Url":"https://a.example/chat/completions","ResponseCode":200,"Type":"ApiManagementGatewayLogs"}
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ingest.ReadAll(path, ingest.Options{Format: ingest.FormatAuto})
	if err == nil || !strings.Contains(err.Error(), "apim.jsonl:1") || !strings.Contains(err.Error(), `"TimeGenerated"`) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad gateway time: %v", err)
	}
}
