package runner

import (
	"context"
	"strconv"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/synth"
)

// sender turns one scheduled item into one result row, as vegeta's Attacker.hit does: it sends
// the item's prompt, waits for the whole answer and hands the row to the sink. The scheduler
// decides when; the mapping from what happened to the row is rowFor, a pure function.
type sender struct {
	client      *client.Client
	chat        bool // the chat API: send messages, not a prompt
	sendIDs     bool // completions prompts as token ids
	keepPrompts bool
	label       string
	sink        *sink
	progress    *progress
	retries     int
}

// send is the scheduler's SendFunc: one attempt, or under --retries as many as it takes, each
// written as its own row; the scheduler's next turn of the session waits for the last.
func (s *sender) send(ctx context.Context, it scheduler.Item, t scheduler.Timing) {
	r := it.Payload.(*synth.Request)
	req := s.request(r)
	req.ID = requestID(r, it.Warmup)
	for attempt := 0; ; attempt++ {
		resp := s.client.Do(ctx, req, t.Clock.Now)
		again := attempt < s.retries && retryable(&resp) && ctx.Err() == nil
		row := rowFor(r, it.Warmup, t, &resp, s.label, s.keepPrompts)
		row.Attempt, row.Retried = int32(attempt), again
		s.sink.put(row)
		if !again {
			if !it.Warmup && !resp.OK() {
				s.progress.failed()
			}
			return
		}
		if !sleepCtx(ctx, backoff(attempt, resp.RetryAfterNS)) {
			return // stopped while waiting: the attempt's row is already written
		}
		t.SentNS = t.Clock.Now()
	}
}

// request is the body the client sends for r.
func (s *sender) request(r *synth.Request) client.Request {
	creq := client.Request{Prompt: r.Prompt, MaxTokens: r.MaxTokens}
	switch {
	case s.chat:
		creq.Messages = r.Messages
	case s.sendIDs:
		creq.PromptIDs = r.PromptIDs
	}
	return creq
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
	}
	if keepPrompt {
		row.Prompt = r.Prompt
	}
	return row
}
