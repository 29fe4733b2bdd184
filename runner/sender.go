package runner

import (
	"context"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/telemetry"
	"github.com/llm-replay/replay/trace"
)

// sender turns one scheduled item into one result row, as vegeta's Attacker.hit does: it sends
// the item's prompt, waits for the whole answer and hands the row to the sink. The scheduler
// decides when; the mapping from what happened to the row is rowFor, a pure function.
type sender struct {
	client      *client.Client
	sendIDs     bool   // completions prompts as token ids
	api         string // the API of requests that name none (Config.Client.API)
	keepPrompts bool
	label       string
	sink        *sink
	retries     int
	// logged sends each request with its own logged options, forced only where they say so,
	// and cancelled where its client cancelled it (--options logged); verbatim sends each
	// record's logged body instead of a synthesized one (--body verbatim).
	logged   bool
	verbatim bool
	// capAsMaxTokens sends a logged max_completion_tokens cap as max_tokens, for an engine
	// that reads only the older name (engine.ReadsMaxCompletionTokens).
	capAsMaxTokens bool
	// unforcedAPIs are the APIs whose requests go without the forcing fields, which the
	// engine drops there (engine.ForcesOn).
	unforcedAPIs map[string]bool
	// pre holds bodies encoded ahead of their sends (prebuild.go); nil encodes each at its send.
	pre *prebuilder
	// stream, when set, builds the measured requests as the run goes (stream_plan.go): an
	// item's payload then holds its schedule and the built request is taken at its send, with
	// the body encoded for this sender's endpoint (the stream's taker number leg).
	stream *streamPlan
	leg    int
	// sends marks each measured request as it leaves (sendlog.go); shift moves a resumed
	// run's rows onto the killed run's time line (resume.go).
	sends *sendLog
	shift int64
	// traces derives each request's traceparent (nil under --trace-context off); spans, when
	// set, exports the rows as spans and is told each phase's clock (telemetry.go).
	traces *telemetry.Traces
	spans  *telemetry.Exporter
	// route sends each request to its mapped model with its routing headers and names its
	// row's model and SLO class (routed.go); nil for none.
	route *routes
}

// errCancelAsLogged is the cause of a cancellation replayed from the log, which tells it from
// the run's own.
var errCancelAsLogged = errors.New("cancelled as the log says its client did")

// send is the scheduler's SendFunc: one attempt, or under --retries as many as it takes, each
// written as its own row; the scheduler's next turn of the session waits for the last.
func (s *sender) send(ctx context.Context, it scheduler.Item, t scheduler.Timing) {
	var r *synth.Request
	var body *client.Encoded
	if s.stream != nil && !it.Warmup { // a streamed plan's item carries no payload
		var err error
		if r, body, err = s.stream.take(ctx, it.Index, s.leg); err != nil {
			return // the build failed or the run stopped first: the run ends with the build's error
		}
	} else {
		r = it.Payload.(*synth.Request)
	}
	req := s.request(r)
	switch {
	case body != nil:
		req.Encoded = body
	case !it.Warmup:
		req.Encoded = s.pre.take(it.Index) // it.Index is the position in the plan's requests
	}
	req.ID = requestID(r, it.Warmup)
	if !it.Warmup && s.sends != nil {
		s.sends.mark(it.Index)
	}
	var traceID [16]byte
	if s.traces != nil {
		traceID = s.traces.TraceID(req.ID)
	}
	for attempt := 0; ; attempt++ {
		s.traceContext(&req, traceID, attempt, it.Warmup, t.Clock)
		resp, cancelled := s.do(ctx, req, r, t.Clock.Now)
		again := !cancelled && attempt < s.retries && retryable(&resp) && ctx.Err() == nil
		row := rowFor(r, it.Warmup, t, &resp, s.label, s.keepPrompts)
		if s.traces != nil {
			row.TraceID = hex.EncodeToString(traceID[:])
		}
		s.sentAs(&row, r)
		row.Attempt, row.Retried, row.CancelledAsLogged = int32(attempt), again, cancelled
		row.Shift(s.shift)
		s.sink.put(row)
		if !again {
			return
		}
		if !sleepCtx(ctx, backoff(attempt, resp.RetryAfterNS)) {
			return // stopped while waiting: the attempt's row is already written
		}
		t.SentNS = t.Clock.Now()
	}
}

// do sends req once. A request whose client cancelled it in the log is cancelled the logged
// time after its send; when that is what ended it, cancelled is true and the response carries
// no error: the replay did what the log says.
func (s *sender) do(ctx context.Context, req client.Request, r *synth.Request, clock func() int64) (resp client.Response, cancelled bool) {
	var after time.Duration
	if s.logged {
		after = r.Record.Options.CancelAfter()
	}
	if after == 0 {
		return s.client.Do(ctx, req, clock), false
	}
	cctx, cancel := context.WithTimeoutCause(ctx, after, errCancelAsLogged)
	defer cancel()
	resp = s.client.Do(cctx, req, clock)
	if resp.ErrorClass == client.ErrCanceled && ctx.Err() == nil && errors.Is(context.Cause(cctx), errCancelAsLogged) {
		resp.ErrorClass, resp.ErrorMessage = "", ""
		return resp, true
	}
	return resp, false
}

// request is what the client sends for r: its body (content), with its routing's model
// name and headers (routed.go).
func (s *sender) request(r *synth.Request) client.Request {
	creq := s.content(r)
	if s.route != nil {
		s.route.apply(&creq, &r.Record, creq.API)
	}
	return creq
}

// content is the body the client sends for r: the synthesized prompt, with the record's
// logged options under --options logged, or its logged body under --body verbatim.
func (s *sender) content(r *synth.Request) client.Request {
	o := r.Record.Options
	if s.verbatim && o != nil && len(o.Body) > 0 {
		return client.Request{Body: o.Body, API: o.API}
	}
	creq := client.Request{Prompt: r.Prompt, MaxTokens: r.MaxTokens, API: string(r.API)}
	switch {
	case trace.ChatFamily(string(r.API)):
		creq.Messages = r.Messages
	case r.API == synth.APIEmbeddings:
		embeddingsInput(&creq, r)
	case s.sendIDs:
		creq.PromptIDs = r.PromptIDs
	}
	if s.logged {
		creq.Options = clientOptions(o)
		if s.capAsMaxTokens && creq.Options != nil && creq.Options.MaxTokensField == client.MaxCompletionTokens {
			creq.Options.MaxTokensField = ""
		}
		creq.Unforced = !o.Forced()
		creq.MaxTokens = o.CapPerChoice(r.MaxTokens)
	}
	if r.API == synth.APIEmbeddings || s.unforcedAPIs[string(r.API)] {
		creq.Unforced = true // no output to force, or an API whose engine drops the forcing fields
	}
	if n := loggedReasoning(o); n > 0 {
		creq.ThinkingBudget = min(n, creq.MaxTokens) // sent only where the engine takes a budget
	}
	return creq
}

// loggedReasoning is the thinking part of a record's logged output, -1 when the log did not say.
func loggedReasoning(o *trace.Options) int {
	if o == nil || o.ReasoningTokens == nil {
		return -1
	}
	return *o.ReasoningTokens
}

// embeddingsInput sets an embeddings request's input as it was logged: one text or a batch,
// as text or as token ids.
func embeddingsInput(creq *client.Request, r *synth.Request) {
	o := r.Record.Options
	ids := o != nil && o.InputIDs
	creq.InputList = o != nil && o.InputList
	switch {
	case r.Inputs != nil && ids:
		creq.InputIDs = r.InputIDs
	case r.Inputs != nil:
		creq.Inputs = r.Inputs
	case ids:
		creq.PromptIDs = r.PromptIDs
	}
}

// sentAs fills what the row says of how r was sent: its population, whether it went without
// output forcing, and the output it asked for (every choice's under n > 1; a verbatim body
// asks for what the log says it produced).
func (s *sender) sentAs(row *results.Row, r *synth.Request) {
	o := r.Record.Options
	row.Population = sentPopulation(o, s.logged)
	row.API = s.api
	switch {
	case r.API != "":
		row.API = string(r.API)
	case o != nil && o.API != "":
		row.API = o.API // a verbatim body goes to its logged API
	}
	switch {
	case s.verbatim:
		row.TargetOutputTokens = int32(r.Record.OutputTokens)
	case s.logged:
		row.Unforced = !o.Forced()
		row.TargetOutputTokens = int32(o.CapPerChoice(r.MaxTokens) * o.Choices())
	}
	if !s.verbatim && (r.API == synth.APIEmbeddings || s.unforcedAPIs[string(r.API)]) {
		row.Unforced = true
	}
	if s.route != nil {
		s.route.row(row, &r.Record)
	}
}

// requestID names a request in its row and, as X-Request-Id, to the server, so the server's
// logs join the rows.
func requestID(r *synth.Request, warmup bool) string {
	if warmup {
		return "warmup-" + strconv.Itoa(r.Index)
	}
	return strconv.Itoa(r.Index)
}

// rowFor is the result row of request r sent with timing t and answered with resp, labelled
// with the endpoint. The prompt text is kept only when asked for.
func rowFor(r *synth.Request, warmup bool, t scheduler.Timing, resp *client.Response, label string, keepPrompt bool) results.Row {
	row := results.Row{
		RequestID:           requestID(r, warmup),
		Warmup:              warmup,
		SessionID:           r.Record.SessionID,
		Turn:                int32(r.Record.Turn),
		OriginalTimestampNS: int64(r.Record.Timestamp),
		ScheduledNS:         t.ScheduledNS,
		SentNS:              t.SentNS,
		WrittenNS:           resp.WrittenNS,
		QueueWaitNS:         t.QueueWaitNS,
		ClientBacklogNS:     t.ClientBacklogNS,
		FirstTokenNS:        resp.FirstTokenNS,
		LastTokenNS:         resp.LastTokenNS,
		DoneNS:              resp.DoneNS,
		ChunkNS:             resp.ChunkNS,
		TargetPromptTokens:  int32(r.TargetPromptTokens),
		TargetOutputTokens:  int32(r.MaxTokens),
		PromptTokens:        int32(resp.PromptTokens),
		CompletionTokens:    int32(resp.CompletionTokens),
		CachedTokens:        int32(resp.CachedTokens),
		HTTPStatus:          int32(resp.HTTPStatus),
		ErrorClass:          resp.ErrorClass,
		ErrorMessage:        resp.ErrorMessage,
		Endpoint:            label,
		RetryAfterNS:        resp.RetryAfterNS,
		Line:                r.Record.Line,
		FinishReason:        resp.FinishReason,
	}
	reasoningRow(&row, resp, loggedReasoning(r.Record.Options))
	mediaRow(&row, r)
	if keepPrompt {
		row.Prompt = r.Prompt
	}
	return row
}

// reasoningRow sets the row's thinking and answer figures from the answer: the first chunk of
// each, and the tokens of each: the server's count where its usage breaks thinking out; else
// the usage's completion tokens when only one kind came; else the thinking chunks counted (a
// server streams about a token a chunk) and the rest of the usage's completion tokens as the
// answer; without usage, the chunks of each kind. logged is the log's own thinking count (-1
// unknown).
func reasoningRow(row *results.Row, resp *client.Response, logged int) {
	row.FirstReasoningNS, row.FirstAnswerNS = resp.FirstReasoningNS, resp.FirstAnswerNS
	row.TargetReasoningTokens = int32(logged)
	reasoning, answer := resp.ReasoningChunks, resp.AnswerChunks
	switch completion := resp.CompletionTokens; {
	case resp.ReasoningTokens >= 0 && completion >= 0: // the usage breaks thinking out
		reasoning, answer = resp.ReasoningTokens, max(completion-resp.ReasoningTokens, 0)
	case resp.ReasoningTokens >= 0:
		reasoning = resp.ReasoningTokens
	case completion >= 0 && reasoning == 0: // no thinking seen (a non-streamed answer too): all answer
		answer = completion
	case completion >= 0 && answer == 0: // all thinking: the usage counts it
		reasoning = completion
	case completion >= 0: // both kinds, no breakdown: the thinking chunks counted
		answer = max(completion-reasoning, 0)
	}
	row.ReasoningTokens, row.AnswerTokens = int32(reasoning), int32(answer)
}
