package gatewaylog

import (
	"strings"
	"time"
)

// Before API Management had an LLM log, teams logged their Azure OpenAI traffic with the
// gateway log alone, bodies included: the category GatewayLogs (API Management docs,
// "Reference: Gateway log schema", https://learn.microsoft.com/azure/api-management/gateway-log-schema-reference:
// BackendRequestBody, BackendResponseBody, RequestBody, ResponseBody "string", ResponseCode,
// BackendResponseCode, Url, OperationId, ApimSubscriptionId, TotalTime "from first byte
// received by API Management to last byte a client received back"), as the diagnostic
// setting sends it with the common schema's time, durationMs and correlationId at the top and
// the rest camelCased under properties (Elastic's azure_openai integration parses these
// records: packages/azure_openai, its test-open-ai-gateway.log). Such a record with no LLM
// record joined to it is a model request when its response body, a JSON string, holds the
// OpenAI usage, or when the call to a model route failed (a 400 of the content filter, whose
// body holds an error and no usage): a failed request, its status kept, its counts unknown
// (0). Other gateway records are plain API traffic, skipped as before.
//
// Its arrival is `time` (TimeGenerated in the table), read as the gateway log's is when
// joined: the documents do not say whether it is the request's start or end; durationMs is
// kept as the request's latency. The model is the response's, else the request body's, else
// the deployment in the URL.

// readAPIMGateway reads a gateway record that no LLM record joined.
func readAPIMGateway(rec Record) (Entry, error) {
	e := NewEntry()
	resp := firstPresent(apimGet(rec, "BackendResponseBody"), apimGet(rec, "ResponseBody"))
	req := firstPresent(apimGet(rec, "RequestBody"), apimGet(rec, "BackendRequestBody"))
	usage := resp.Get("usage")
	url, _ := firstPresent(apimGet(rec, "Url"), apimGet(rec, "BackendUrl")).String()
	url, _, _ = strings.Cut(url, "?")
	api := apimOperationAPI(apimGet(rec, "OperationId"))
	for _, p := range envoyLLMPaths {
		if strings.HasSuffix(url, p.suffix) {
			api = p.api
			break
		}
	}
	code, _, err := firstPresent(apimGet(rec, "ResponseCode"), apimGet(rec, "BackendResponseCode")).Int()
	if err != nil {
		return e, err
	}
	failed := code >= 400 || resp.Get("error").Exists()
	if api == "" || (!usage.Exists() && !failed) {
		return e, ErrNotModelRequest // plain API traffic, or a model call logged without its body
	}
	e.API, e.Status = api, code
	if usage.Exists() {
		if err := apimUsageInto(&e, usage); err != nil {
			return e, err
		}
	}
	e.Model = firstString(resp.Get("model"), req.Get("model"))
	if e.Model == "" {
		e.Model = deploymentOf(url)
	}
	if s, ok := req.Get("stream").Bool(); ok {
		e.Stream = &s
	}
	e.FinishReason, _ = resp.Get("choices").Index(0).Get("finish_reason").String()
	e.Key = firstString(apimGet(rec, "ApimSubscriptionId"), apimGet(rec, "UserId"))
	if err := samplingInto(&e, req); err != nil {
		return e, err
	}
	if e.Start, err = apimTime(rec); err != nil {
		return e, err
	}
	if ms, ok, err := apimGet(rec, "durationMs").Float(); err != nil {
		return e, err
	} else if ok {
		e.Latency = time.Duration(ms * float64(time.Millisecond))
	}
	return e, nil
}

// apimUsageInto reads an OpenAI usage object: the prompt count, the completion count (none
// for embeddings), the cached tokens and the reasoning tokens.
func apimUsageInto(e *Entry, usage Value) error {
	var err error
	if e.PromptTokens, err = requiredInt(usage.Get("prompt_tokens")); err != nil {
		return err
	}
	if out := usage.Get("completion_tokens"); out.Exists() {
		if e.OutputTokens, err = requiredInt(out); err != nil {
			return err
		}
	}
	if e.CachedTokens, err = cachedOf(usage.Get("prompt_tokens_details", "cached_tokens")); err != nil {
		return err
	}
	e.ReasoningTokens, err = usageReasoning(e.OutputTokens, usage)
	return err
}

// deploymentOf is the Azure OpenAI deployment an URL's path names (/deployments/NAME/...).
func deploymentOf(url string) string {
	_, rest, ok := strings.Cut(url, "/deployments/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}
