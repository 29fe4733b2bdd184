package gatewaylog

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// TestAPIMGatewayLogs reads API Management's classic gateway log alone, bodies logged: the
// fixture testdata/apim-gatewaylogs.jsonl is written (values made up) from
//   - Microsoft, "Reference: Gateway log schema"
//     (https://learn.microsoft.com/azure/api-management/gateway-log-schema-reference): the
//     GatewayLogs properties, among them BackendRequestBody, BackendResponseBody, RequestBody
//     and ResponseBody as strings, ResponseCode and BackendResponseCode, Url, OperationId,
//     ApimSubscriptionId; entries "also include fields in the top-level common schema";
//   - Microsoft, "Common and service-specific schemas for Azure resource logs"
//     (https://learn.microsoft.com/azure/azure-monitor/essentials/resource-logs-schema): the
//     top-level time, resourceId, operationName, category, resultType, durationMs,
//     callerIpAddress, correlationId, properties;
//   - Azure Monitor Logs reference, "ApiManagementGatewayLogs"
//     (https://learn.microsoft.com/azure/azure-monitor/reference/tables/ApiManagementGatewayLogs):
//     the table's PascalCase columns, TimeGenerated and Type, for a Log Analytics export;
//   - Elastic's azure_openai integration (elastic/integrations, packages/azure_openai,
//     data_stream/logs/_dev/test/pipeline/test-open-ai-gateway.log), which parses these
//     records: properties camelCased (backendRequestBody, backendResponseBody, requestBody,
//     responseBody, responseCode, url, operationId), the bodies JSON held in strings, the
//     usage (prompt_tokens, completion_tokens) in the response body, and a 400 whose body is
//     the content filter's error (code content_filter, no usage).
//
// Read: a chat completion with cached tokens, the cap, temperature and stream from the request
// body; a content-filter 400 as a failed request (status kept, counts unknown, the model the
// URL's deployment); embeddings (no completion count); the table's form; a streamed answer
// (server-sent events, no usage in the body) and plain API traffic skipped; a bad prompt count
// rejected.
func TestAPIMGatewayLogs(t *testing.T) {
	checkRecords(t, "apim-gatewaylogs.jsonl", "apim", []want{
		{0, 0, 0, -1, "gpt4o-mini-prod", trace.APIChat, "", 0},
		{350 * time.Millisecond, 1480, 96, 1024, "gpt-4o-mini", trace.APIChat, "false", 300},
		{1100 * time.Millisecond, 64, 0, -1, "text-embedding-3-small", trace.APIEmbeddings, "", 0},
		{3223456700 * time.Nanosecond, 9000, 512, -1, "gpt-4o", trace.APIChat, "", 512},
	}, 2, 1)
	checkRejected(t, "apim-gatewaylogs.jsonl", "apim", 7, "properties.responseBody.usage.prompt_tokens")
	recs, _, err := ingest.ReadAll(filepath.Join("testdata", "apim-gatewaylogs.jsonl"), ingest.Options{Format: "apim", OnError: ingest.OnErrorSkip})
	if err != nil {
		t.Fatal(err)
	}
	if s := recs[0].Options.Status; s != 400 {
		t.Errorf("the content-filtered request's status %d, want 400", s)
	}
	if s, f := recs[1].Options.Status, recs[1].Options.FinishReason; s != 200 || f != "stop" {
		t.Errorf("the chat completion's status %d, finish reason %q; want 200, stop", s, f)
	}
}
