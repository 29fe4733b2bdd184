package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/testenv"
)

// typedCase is one typed stream, written as exact bytes, and how it must be judged.
type typedCase struct {
	name, body string
	maxTokens  int
	class      string
	msg        []string // substrings of the message
	chunks     int
	usage      [3]int // prompt, completion, cached (checked when class is "" or short)
	finish     string
}

func runTyped(t *testing.T, api string, cases []typedCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := rawSSE(t, tc.body)
			r := newClient(t, srv.URL, api, nil).Do(context.Background(), Request{Prompt: "x", MaxTokens: tc.maxTokens}, newClock())
			if r.ErrorClass != tc.class || r.HTTPStatus != 200 {
				t.Fatalf("class %q (%s), status %d; want %q", r.ErrorClass, r.ErrorMessage, r.HTTPStatus, tc.class)
			}
			for _, m := range tc.msg {
				if !strings.Contains(r.ErrorMessage, m) {
					t.Errorf("message %q lacks %q", r.ErrorMessage, m)
				}
			}
			if len(r.ChunkNS) != tc.chunks {
				t.Errorf("%d chunks, want %d", len(r.ChunkNS), tc.chunks)
			}
			if tc.class == "" || tc.class == ErrShort {
				if got := [3]int{r.PromptTokens, r.CompletionTokens, r.CachedTokens}; got != tc.usage {
					t.Errorf("usage %v, want %v", got, tc.usage)
				}
				if r.FinishReason != tc.finish {
					t.Errorf("finish %q, want %q", r.FinishReason, tc.finish)
				}
				checkOrder(t, r)
			}
		})
	}
}

// Responses API streams, from the reference's events and the engines' variants: content
// chunks are the output deltas; usage is response.completed's; the cap is incomplete;
// failures are classed by their codes.
func TestResponsesStream(t *testing.T) {
	ok := [3]int{36, 3, 16}
	open := sseEvent(responsesCreated) + sseEvent(responsesItemAdded)
	runTyped(t, APIResponses, []typedCase{
		{"reference", responsesStream(3, responsesCompleted), 3, "", nil, 3, ok, "stop"},
		{"llama.cpp", llamaResponsesStream, 1, "", nil, 1, [3]int{9, 1, -1}, "stop"},
		{"reference, a [DONE] after", responsesStream(3, responsesCompleted) + "data: [DONE]\n\n", 3, "", nil, 3, ok, "stop"},
		{"reasoning and a call", open + sseEvent(responsesReasoningDelta) + sseEvent(responsesArgsDelta) + sseEvent(responsesCompleted), 3, "", nil, 2, ok, "tool_calls"},
		{"incomplete at the cap", responsesStream(5, fmt.Sprintf(responsesIncomplete, 5)), 5, "", nil, 5, [3]int{36, 5, -1}, "length"},
		{"incomplete short of the cap", responsesStream(2, fmt.Sprintf(responsesIncomplete, 2)), 5, ErrShort, []string{"status incomplete", "2 completion tokens of max_tokens 5"}, 2, [3]int{36, 2, -1}, "length"},
		{"vLLM: completed, status incomplete", responsesStream(2, fmt.Sprintf(vllmCompletedIncomplete, 2)), 4, ErrShort, nil, 2, [3]int{12, 2, 0}, "length"},
		{"failed", open + sseEvent(responsesDelta) + sseEvent(responsesFailed), 3, ErrHTTP5xx, []string{"The model failed to generate a response."}, 1, ok, ""},
		{"error event, unknown code", open + sseEvent(responsesError), 3, ErrStreamBroken, []string{"Something went wrong"}, 0, ok, ""},
		{"error event, rate limit", open + sseEvent(`{"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null,"sequence_number":2}`), 3, ErrHTTP429, []string{"slow down"}, 0, ok, ""},
		{"llama.cpp error", open + sseEvent(responsesDelta) + "data: " + llamaResponsesError + "\n\n", 3, ErrHTTP5xx, []string{"slot died"}, 1, ok, ""},
		{"no terminal event", responsesStream(3, responsesTextDone), 3, ErrStreamBroken, []string{"closed before response.completed after 3 content chunks"}, 3, ok, ""},
		{"only [DONE]", open + sseEvent(responsesDelta) + "data: [DONE]\n\n", 3, ErrStreamBroken, []string{"before response.completed"}, 1, ok, ""},
		{"no output", responsesStream(0, responsesCompleted), 3, ErrBadStream, []string{"no content chunk", "max_tokens was 3"}, 0, ok, ""},
		{"no usage", responsesStream(2, strings.Replace(responsesCompleted, `"usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":16},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":39}`, `"usage":null`, 1)),
			3, ErrBadStream, []string{"no usage", "the responses API reports it"}, 2, ok, ""},
		{"not JSON", open + "data: {nope\n\n" + sseEvent(responsesCompleted), 3, ErrBadStream, []string{"frame 3 is not a JSON chunk"}, 0, ok, ""},
		{"not SSE", `{"object":"response"}`, 3, ErrBadStream, []string{"not an SSE stream"}, 0, ok, ""},
	})
}

// Messages API streams, from Anthropic's guide and the engines' variants: content chunks are
// the text, input_json and thinking deltas (not a signature); the prompt is input_tokens
// plus the cache reads and writes; stop_reason max_tokens is the cap; errors are classed by
// their type (overloaded_error as a 5xx).
func TestMessagesStream(t *testing.T) {
	guide := [3]int{25, 3, -1}
	head := sseEvent(messagesStart) + sseEvent(messagesBlockStart)
	tail := func(stop string, out int) string {
		return sseEvent(messagesBlockStop) + sseEvent(fmt.Sprintf(messagesDelta, stop, out)) + sseEvent(messagesStop)
	}
	runTyped(t, APIMessages, []typedCase{
		{"guide", messagesStream(3, "end_turn"), 3, "", nil, 3, guide, "stop"},
		{"vLLM", vllmMessagesStream, 1, "", nil, 1, [3]int{7, 1, -1}, "length"},
		{"vLLM: a [DONE] after message_stop", messagesStream(3, "stop_sequence") + "data: [DONE]\n\n", 3, "", nil, 3, guide, "stop"},
		{"cache reads and writes", sseEvent(messagesStartCache) + sseEvent(messagesBlockStart) + sseEvent(messagesTextDelta) + tail("end_turn", 1), 1, "", nil, 1, [3]int{135, 1, 100}, "stop"},
		{"thinking, tool input, no signature chunk", head + sseEvent(messagesThinkingDelta) + sseEvent(messagesSignature) + sseEvent(messagesJSONDelta) + tail("tool_use", 3), 3, "", nil, 2, guide, "tool_calls"},
		{"max_tokens at the cap", messagesStream(4, "max_tokens"), 4, "", nil, 4, [3]int{25, 4, -1}, "length"},
		{"max_tokens short of the cap", messagesStream(2, "max_tokens"), 4, ErrShort, []string{"stop_reason max_tokens", "2 completion tokens of max_tokens 4"}, 2, [3]int{25, 2, -1}, "length"},
		{"overloaded", head + sseEvent(messagesTextDelta) + sseEvent(messagesOverloaded), 3, ErrHTTP5xx, []string{"Overloaded"}, 1, guide, ""},
		{"rate limited", head + sseEvent(`{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}`), 3, ErrHTTP429, []string{"slow"}, 0, guide, ""},
		{"llama.cpp error event", head + "event: error\ndata: " + llamaMessagesError + "\n\n", 3, ErrHTTP5xx, []string{"slot died"}, 0, guide, ""},
		{"stop_reason then EOF", head + sseEvent(messagesTextDelta) + sseEvent(fmt.Sprintf(messagesDelta, "end_turn", 1)), 1, ErrBadStream, []string{"without message_stop"}, 1, guide, ""},
		{"cut mid-answer", head + sseEvent(messagesTextDelta), 3, ErrStreamBroken, []string{"closed before message_stop after 1 content chunks"}, 1, guide, ""},
		{"no content", sseEvent(messagesStart) + tail("end_turn", 0), 3, ErrBadStream, []string{"no content chunk"}, 0, guide, ""},
		{"usage from message_start only", head + sseEvent(messagesTextDelta) + sseEvent(`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`) + sseEvent(messagesStop), 0, "", nil, 1, [3]int{25, 1, -1}, "stop"},
	})
}

// A Messages stream with no usage at all is bad_stream (usage is wanted).
func TestMessagesStreamNoUsage(t *testing.T) {
	body := sseEvent(`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}`) +
		sseEvent(messagesTextDelta) + sseEvent(`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`) + sseEvent(messagesStop)
	srv := rawSSE(t, body)
	r := newClient(t, srv.URL, APIMessages, nil).Do(context.Background(), Request{Prompt: "x", MaxTokens: 1}, newClock())
	if r.ErrorClass != ErrBadStream || !strings.Contains(r.ErrorMessage, "no usage") {
		t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
	}
}

// Chunk times follow arrival on a typed stream too: each delta is timed as it comes.
func TestTypedChunkTimes(t *testing.T) {
	const gap = 15 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range []string{messagesStart, messagesBlockStart} {
			fmt.Fprint(w, sseEvent(e))
		}
		for range 3 {
			w.(http.Flusher).Flush()
			time.Sleep(gap)
			fmt.Fprint(w, sseEvent(messagesTextDelta))
		}
		fmt.Fprint(w, sseEvent(fmt.Sprintf(messagesDelta, "end_turn", 3))+sseEvent(messagesStop))
	}))
	defer srv.Close()
	r := newClient(t, srv.URL, APIMessages, nil).Do(context.Background(), Request{Prompt: "x", MaxTokens: 3}, newClock())
	if !r.OK() || len(r.ChunkNS) != 3 {
		t.Fatalf("%s: %s, %d chunks", r.ErrorClass, r.ErrorMessage, len(r.ChunkNS))
	}
	checkOrder(t, r)
	for i := 1; i < 3; i++ {
		if d := time.Duration(r.ChunkNS[i] - r.ChunkNS[i-1]); d < gap-2*time.Millisecond {
			t.Fatalf("chunks %d and %d %v apart, server waited %v", i-1, i, d, gap)
		}
	}
}

// Typed streams survive a server that closes each connection after one answer, as
// llama-server does after a streamed one: every request is ok and answered once, on both
// send paths.
func TestTypedStreamsOnAClosingServer(t *testing.T) {
	const n = 8
	for _, p := range sendPaths {
		for _, api := range []string{APIResponses, APIMessages, APIEmbeddings} {
			t.Run(p.name+"/"+api, func(t *testing.T) {
				srv := testenv.NewClosingHandlerServer(t, 5*time.Millisecond, &apiRecorder{})
				c := newClient(t, srv.URL, api, p.mut)
				for i := range n {
					r := c.Do(t.Context(), Request{Messages: []chat.Message{{Role: "user", Content: "hi"}}, Prompt: "hi", MaxTokens: 3}, newClock())
					if !r.OK() || r.API != api {
						t.Fatalf("request %d: %s: %s", i, r.ErrorClass, r.ErrorMessage)
					}
				}
				if got := srv.Served.Load(); got != n {
					t.Fatalf("the server answered %d requests, want %d", got, n)
				}
			})
		}
	}
}

// A content event costs no allocation on a typed stream, as a chunk costs none on chat's
// (ChunkNS is reserved ahead): the fast path stays as fast; nor does chat's finish chunk.
func TestStreamLinesDoNotAllocate(t *testing.T) {
	for _, tc := range []struct {
		api   apiKind
		lines []string
	}{
		{kindResponses, []string{"event: response.output_text.delta", "data: " + responsesDelta, ""}},
		{kindMessages, []string{"event: content_block_delta", "data: " + messagesTextDelta, "", "data: " + messagesPing}},
		{kindChat, []string{`data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`}},
	} {
		st := streamState{api: tc.api, tu: noTokens}
		r := Response{ChunkNS: make([]int64, 0, 4096)}
		lines := make([][]byte, len(tc.lines))
		for i, l := range tc.lines {
			lines[i] = []byte(l)
		}
		if n := testing.AllocsPerRun(200, func() {
			for _, l := range lines {
				st.line(l, 1, &r)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per event", tc.api, n)
		}
		if len(r.ChunkNS) == 0 {
			t.Errorf("%s: no chunk counted", tc.api)
		}
	}
}
