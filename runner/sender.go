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
}

// send is the scheduler's SendFunc.
func (s *sender) send(ctx context.Context, it scheduler.Item, t scheduler.Timing) {
	r := it.Payload.(*synth.Request)
	resp := s.client.Do(ctx, s.request(r), t.Clock.Now)
	s.sink.put(rowFor(r, it.Warmup, t, &resp, s.label, s.keepPrompts))
	if !it.Warmup && !resp.OK() {
		s.progress.failed()
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

// rowFor is the result row of request r sent with timing t and answered with resp, labelled
// with the endpoint. The prompt text is kept only when asked for.
func rowFor(r *synth.Request, warmup bool, t scheduler.Timing, resp *client.Response, label string, keepPrompt bool) results.Row {
	id := strconv.Itoa(r.Index)
	if warmup {
		id = "warmup-" + id
	}
	row := results.Row{
		RequestID:           id,
		Warmup:              warmup,
		SessionID:           r.Record.SessionID,
		Turn:                int32(r.Record.Turn),
		OriginalTimestampNS: int64(r.Record.Timestamp),
		ScheduledNS:         t.ScheduledNS,
		SentNS:              t.SentNS,
		QueueWaitNS:         t.QueueWaitNS,
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
	}
	if keepPrompt {
		row.Prompt = r.Prompt
	}
	return row
}
