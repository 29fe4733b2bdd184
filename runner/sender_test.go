package runner

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// TestRowFor maps what happened to one request onto its row, without HTTP: every timing and
// count lands in its own field, warmup rows are marked and renamed, the prompt is kept only
// when asked, and a failure keeps its class, status and message.
func TestRowFor(t *testing.T) {
	req := &synth.Request{
		Index:  7,
		Record: trace.Record{Timestamp: 1500 * time.Millisecond, SessionID: "s1", Turn: 2},
		Prompt: "hello", TargetPromptTokens: 120, MaxTokens: 30,
	}
	timing := scheduler.Timing{ScheduledNS: 100, SentNS: 150, QueueWaitNS: 40}
	ok := client.Response{FirstTokenNS: 300, LastTokenNS: 900, DoneNS: 950, ChunkNS: []int64{300, 600, 900},
		FirstAnswerNS: 300, AnswerChunks: 3, ReasoningTokens: -1,
		PromptTokens: 120, CompletionTokens: 30, CachedTokens: 64, HTTPStatus: 200}
	failed := client.Response{DoneNS: 170, PromptTokens: -1, CompletionTokens: -1, CachedTokens: -1, ReasoningTokens: -1,
		HTTPStatus: 503, ErrorClass: client.ErrHTTP5xx, ErrorMessage: "overloaded"}
	base := results.Row{
		RequestID: "7", SessionID: "s1", Turn: 2, OriginalTimestampNS: int64(1500 * time.Millisecond),
		ScheduledNS: 100, SentNS: 150, QueueWaitNS: 40, TargetPromptTokens: 120, TargetOutputTokens: 30,
		Endpoint: "http://e", TargetReasoningTokens: -1,
	}
	with := func(f func(*results.Row)) results.Row { r := base; f(&r); return r }
	answered := func(r *results.Row) {
		r.FirstTokenNS, r.LastTokenNS, r.DoneNS, r.ChunkNS = 300, 900, 950, []int64{300, 600, 900}
		r.PromptTokens, r.CompletionTokens, r.CachedTokens, r.HTTPStatus = 120, 30, 64, 200
		r.FirstAnswerNS, r.AnswerTokens = 300, 30 // no thinking: the usage's completion is all answer
	}
	for _, tc := range []struct {
		name       string
		warmup     bool
		keepPrompt bool
		resp       client.Response
		want       results.Row
	}{
		{"answered", false, false, ok, with(answered)},
		{"prompt kept", false, true, ok, with(func(r *results.Row) { answered(r); r.Prompt = "hello" })},
		{"warmup", true, false, ok, with(func(r *results.Row) { answered(r); r.RequestID, r.Warmup = "warmup-7", true })},
		{"failed", false, false, failed, with(func(r *results.Row) {
			r.DoneNS, r.PromptTokens, r.CompletionTokens, r.CachedTokens = 170, -1, -1, -1
			r.HTTPStatus, r.ErrorClass, r.ErrorMessage = 503, client.ErrHTTP5xx, "overloaded"
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rowFor(req, tc.warmup, timing, &tc.resp, "http://e", tc.keepPrompt)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("row\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestSenderRequest builds the body each request's API sends: the chat family (chat,
// responses, messages) the messages, completions the prompt, as token ids only when asked,
// embeddings its inputs.
func TestSenderRequest(t *testing.T) {
	msgs := []chat.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}
	for _, tc := range []struct {
		name string
		api  synth.API
		s    sender
		want client.Request
	}{
		{"completions", synth.APICompletions, sender{}, client.Request{Prompt: "p", MaxTokens: 5, API: "completions"}},
		{"completions ids", synth.APICompletions, sender{sendIDs: true}, client.Request{Prompt: "p", PromptIDs: []int{1, 2}, MaxTokens: 5, API: "completions"}},
		{"chat", synth.APIChat, sender{sendIDs: true}, client.Request{Prompt: "p", MaxTokens: 5, API: "chat", Messages: msgs}},
		{"responses", synth.APIResponses, sender{}, client.Request{Prompt: "p", MaxTokens: 5, API: "responses", Messages: msgs}},
		{"messages", synth.APIMessages, sender{}, client.Request{Prompt: "p", MaxTokens: 5, API: "messages", Messages: msgs}},
		{"embeddings", synth.APIEmbeddings, sender{}, client.Request{Prompt: "p", MaxTokens: 5, API: "embeddings", Unforced: true}},
	} {
		r := &synth.Request{API: tc.api, Prompt: "p", PromptIDs: []int{1, 2}, MaxTokens: 5, Messages: msgs}
		if got := tc.s.request(r); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// results.APIs is trace.APIs, written again because results must not link trace's Parquet.
func TestAPINamesAgree(t *testing.T) {
	if !slices.Equal(results.APIs, trace.APIs) {
		t.Fatalf("results.APIs %v, trace.APIs %v", results.APIs, trace.APIs)
	}
}

// --api-override sends every record to --api and says how many it moved from which API; the
// records' own options are copies, the trace's untouched.
func TestOverrideAPI(t *testing.T) {
	logged := []*trace.Options{{API: "chat"}, {API: "messages"}, {API: "completions"}, {API: "messages"}}
	recs := []trace.Record{{Options: logged[0]}, {Options: logged[1]}, {Options: logged[2]}, {Options: logged[3]}, {}}
	var msg strings.Builder
	overrideAPI(&msg, recs, "completions")
	for i, r := range recs[:4] {
		if r.Options.API != "completions" || r.Options == logged[i] {
			t.Errorf("record %d: %+v", i, r.Options)
		}
	}
	if recs[4].Options != nil || logged[1].API != "messages" {
		t.Errorf("a record without options got %+v; the logged ones changed: %+v", recs[4].Options, logged[1])
	}
	want := "replay: --api-override: 1 requests logged against the chat API are sent to the completions API\n" +
		"replay: --api-override: 2 requests logged against the messages API are sent to the completions API\n"
	if msg.String() != want {
		t.Errorf("said %q, want %q", msg.String(), want)
	}
}

// TestReasoningRowUnstreamed: a non-streamed answer (no chunks of either kind) whose usage
// breaks out no thinking is all answer, not all thinking.
func TestReasoningRowUnstreamed(t *testing.T) {
	var row results.Row
	reasoningRow(&row, &client.Response{CompletionTokens: 30, ReasoningTokens: -1}, -1)
	if row.ReasoningTokens != 0 || row.AnswerTokens != 30 {
		t.Errorf("reasoning %d, answer %d: want 0 and 30", row.ReasoningTokens, row.AnswerTokens)
	}
	reasoningRow(&row, &client.Response{CompletionTokens: 30, ReasoningTokens: -1, ReasoningChunks: 30}, -1)
	if row.ReasoningTokens != 30 || row.AnswerTokens != 0 {
		t.Errorf("a stream of thinking alone: reasoning %d, answer %d: want 30 and 0", row.ReasoningTokens, row.AnswerTokens)
	}
}
