package telemetry

import (
	"encoding/hex"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/llm-replay/replay/results"
)

// Attribute names of replay's own, beside the GenAI semantic conventions' (semconv v1.40.0):
// what only the sender knows.
const (
	attrRequestID  = attribute.Key("replay.request_id")
	attrEndpoint   = attribute.Key("replay.endpoint")
	attrAttempt    = attribute.Key("replay.attempt")
	attrPopulation = attribute.Key("replay.population")
	attrAPI        = attribute.Key("replay.api")
	attrWarmup     = attribute.Key("replay.warmup")
	// attrTTFT is the time to the first content chunk from the send, seconds (absent when
	// none came); attrLateness how late the request's last byte left against its schedule,
	// seconds (the row's send lateness, queue wait under --max-concurrency excluded).
	attrTTFT         = attribute.Key("replay.ttft_s")
	attrLateness     = attribute.Key("replay.lateness_s")
	attrScheduled    = attribute.Key("replay.scheduled_offset_s")
	attrQueueWait    = attribute.Key("replay.queue_wait_s")
	attrCachedTokens = attribute.Key("replay.usage.cached_tokens")
	attrTraceLine    = attribute.Key("replay.trace_line")
)

// eventFirstToken marks the first content chunk's arrival on the span.
const eventFirstToken = "gen_ai.first_token"

// operation is the GenAI operation of a request sent to api (results.APIs): chat for the chat
// family (OpenAI's chat and Responses APIs, Anthropic's Messages), text_completion and
// embeddings for the others.
func operation(api string) string {
	switch api {
	case "completions":
		return semconv.GenAIOperationNameTextCompletion.Value.AsString()
	case "embeddings":
		return semconv.GenAIOperationNameEmbeddings.Value.AsString()
	}
	return semconv.GenAIOperationNameChat.Value.AsString()
}

// spanName is the conventions' "{gen_ai.operation.name} {gen_ai.request.model}", the
// operation alone when the model is unknown.
func spanName(op, model string) string {
	if model == "" {
		return op
	}
	return op + " " + model
}

// spanOf is the span of a finished row: its name, attributes, status, and the times of its
// start (the send), first token (0 for none) and end (done) as offsets on the row's clock.
type spanOf struct {
	name                string
	attrs               []attribute.KeyValue
	status              codes.Code
	statusMessage       string
	startNS, firstNS    int64
	endNS               int64
	traceID             [16]byte
	spanID              [8]byte
	hasIDs, hasFirstTok bool
}

// rowSpan maps a row to its span, a pure function (model is the run's served model name).
func rowSpan(r *results.Row, model string) spanOf {
	op := operation(r.API)
	s := spanOf{name: spanName(op, model), startNS: r.SentNS, endNS: max(r.DoneNS, r.SentNS)}
	s.attrs = append(make([]attribute.KeyValue, 0, 20),
		semconv.GenAIOperationNameKey.String(op),
		attrRequestID.String(r.RequestID),
		attrEndpoint.String(r.Endpoint),
		attrAttempt.Int(int(r.Attempt)),
		attrAPI.String(r.API),
		attrScheduled.Float64(seconds(r.ScheduledNS)),
		attrLateness.Float64(seconds(r.SendNS()-r.ScheduledNS-r.QueueWaitNS)),
		attrQueueWait.Float64(seconds(r.QueueWaitNS)),
		attrTraceLine.Int64(r.Line),
	)
	if model != "" {
		s.attrs = append(s.attrs, semconv.GenAIRequestModelKey.String(model))
	}
	if r.TargetOutputTokens > 0 && r.API != "embeddings" {
		s.attrs = append(s.attrs, semconv.GenAIRequestMaxTokensKey.Int(int(r.TargetOutputTokens)))
	}
	if r.PromptTokens >= 0 {
		s.attrs = append(s.attrs, semconv.GenAIUsageInputTokensKey.Int(int(r.PromptTokens)))
	}
	if r.CompletionTokens >= 0 && r.API != "embeddings" {
		s.attrs = append(s.attrs, semconv.GenAIUsageOutputTokensKey.Int(int(r.CompletionTokens)))
	}
	if r.CachedTokens > 0 {
		s.attrs = append(s.attrs, attrCachedTokens.Int(int(r.CachedTokens)))
	}
	if r.FinishReason != "" {
		s.attrs = append(s.attrs, semconv.GenAIResponseFinishReasonsKey.StringSlice([]string{r.FinishReason}))
	}
	if r.SessionID != "" {
		s.attrs = append(s.attrs, semconv.GenAIConversationIDKey.String(r.SessionID))
	}
	if r.Population != "" {
		s.attrs = append(s.attrs, attrPopulation.String(r.Population))
	}
	if r.Warmup {
		s.attrs = append(s.attrs, attrWarmup.Bool(true))
	}
	if r.HTTPStatus > 0 {
		s.attrs = append(s.attrs, semconv.HTTPResponseStatusCode(int(r.HTTPStatus)))
	}
	if r.FirstTokenNS > 0 {
		s.firstNS, s.hasFirstTok = r.FirstTokenNS, true
		s.attrs = append(s.attrs, attrTTFT.Float64(seconds(r.FirstTokenNS-r.SentNS)))
	}
	if !r.OK() {
		s.attrs = append(s.attrs, semconv.ErrorTypeKey.String(r.ErrorClass))
		s.status, s.statusMessage = codes.Error, r.ErrorClass
	}
	if id, err := hex.DecodeString(r.TraceID); err == nil && len(id) == 16 {
		copy(s.traceID[:], id)
		s.spanID = SpanID(s.traceID, int(r.Attempt))
		s.hasIDs = true
	}
	return s
}

func seconds(ns int64) float64 { return time.Duration(ns).Seconds() }
