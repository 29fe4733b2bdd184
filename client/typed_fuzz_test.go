package client

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzTypedStream feeds arbitrary bytes as a 200 answer to a streamed Responses (split bit 6
// clear) or Messages (set) request: it must never panic, must end in a valid class with a
// bounded message, must not count more chunks than data lines, must not depend on how the
// bytes were split across reads (the low six bits of split), and must call a stream ok only
// when its terminal event came after data lines that are all JSON objects (or [DONE]). Bit 7
// asks for output (max_tokens 2). The seed corpus (testdata/fuzz/FuzzTypedStream) holds the
// references' and the engines' streams.
func FuzzTypedStream(f *testing.F) {
	f.Add([]byte(responsesStream(2, responsesCompleted)), uint8(0x87))
	f.Add([]byte(messagesStream(2, "max_tokens")), uint8(0xc3))
	f.Add([]byte(sseEvent(messagesStart)+"event: error\ndata: "+llamaMessagesError+"\n\n"), uint8(0x45))
	f.Add([]byte(sseEvent(responsesDelta)+"data: {\n\ndata: [DONE]\n\n"), uint8(0x01))
	f.Fuzz(func(t *testing.T, body []byte, split uint8) {
		api, maxTokens := APIResponses, 0
		if split&0x40 != 0 {
			api = APIMessages
		}
		if split&0x80 != 0 {
			maxTokens = 2
		}
		whole := fuzzDoAPI(t, api, body, len(body)+1, maxTokens)
		parts := fuzzDoAPI(t, api, body, int(split)%64+1, maxTokens)
		checkFuzzClass(t, whole)
		if n := bytes.Count(body, []byte("data:")); len(whole.ChunkNS) > n {
			t.Fatalf("%d chunks from %d data lines", len(whole.ChunkNS), n)
		}
		if len(whole.ChunkNS) != len(parts.ChunkNS) || whole.PromptTokens != parts.PromptTokens ||
			whole.CompletionTokens != parts.CompletionTokens || whole.CachedTokens != parts.CachedTokens ||
			whole.ErrorClass != parts.ErrorClass || whole.ErrorMessage != parts.ErrorMessage || whole.FinishReason != parts.FinishReason {
			t.Fatalf("read split changes the result:\nwhole %+v\nparts %+v", whole, parts)
		}
		if whole.OK() {
			checkTypedComplete(t, api, body, whole, maxTokens)
		}
	})
}

// checkFuzzClass holds a response to the classes a 200 answer can get and a bounded message.
func checkFuzzClass(t *testing.T, r Response) {
	t.Helper()
	switch r.ErrorClass {
	case "", ErrStreamBroken, ErrBadStream, ErrShort, ErrHTTP429, ErrHTTP4xx, ErrHTTP5xx:
	default:
		t.Fatalf("class %q", r.ErrorClass)
	}
	if m := r.ErrorMessage; len(m) > maxMessage+len("…") || !utf8.ValidString(m) || (r.ErrorClass != "") != (m != "") {
		t.Fatalf("class %q with message %q", r.ErrorClass, m)
	}
}

// checkTypedComplete holds an ok typed stream to what ok means, judged with encoding/json:
// every data line up to the terminal event is a JSON object or [DONE], the terminal event
// came, usage came (it is wanted), and content came when asked for.
func checkTypedComplete(t *testing.T, api string, body []byte, r Response, maxTokens int) {
	t.Helper()
	done := false
	for _, l := range bytes.Split(body, []byte{'\n'}) {
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if !bytes.HasPrefix(l, []byte("data:")) {
			continue
		}
		p := bytes.TrimSpace(l[5:])
		if string(p) == "[DONE]" {
			continue
		}
		var ev struct {
			Type string `json:"type"`
		}
		if _, ok := oracleFrame(p); !ok || json.NewDecoder(bytes.NewReader(p)).Decode(&ev) != nil {
			t.Fatalf("ok with a data line that is not a JSON object: %q", l)
		}
		if ev.Type == "message_stop" && api == APIMessages || (ev.Type == "response.completed" || ev.Type == "response.incomplete") && api == APIResponses {
			done = true
			break
		}
	}
	if !done || (r.PromptTokens <= 0 && r.CompletionTokens <= 0) || (maxTokens > 0 && len(r.ChunkNS) == 0) {
		t.Fatalf("ok without its end (%v), usage (%d/%d) or content (%d chunks of max %d)",
			done, r.PromptTokens, r.CompletionTokens, len(r.ChunkNS), maxTokens)
	}
}

// FuzzTypedAnswer feeds arbitrary bytes as a 200 answer to a non-streamed Responses,
// Messages or embeddings request (kind % 3): it must never panic, and must end in a valid
// class with a bounded message and no chunk.
func FuzzTypedAnswer(f *testing.F) {
	f.Add([]byte(responsesObject), uint8(0))
	f.Add([]byte(messagesObject), uint8(1))
	f.Add([]byte(embeddingsList(2)), uint8(2))
	f.Add([]byte(`{"data":[{"embedding":"","index":-1}],"error":null}`), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, kind uint8) {
		api := [...]string{APIResponses, APIMessages, APIEmbeddings}[kind%3]
		c, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", API: api, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		c.oa.HTTPClient = splitDoer{body, len(body) + 1}
		req := Request{Prompt: "x", MaxTokens: 2, Inputs: []string{"a", "b"}}
		if api != APIEmbeddings {
			req = Request{Prompt: "x", MaxTokens: 2, Options: &Options{Stream: ptr(false)}}
		}
		var now int64
		r := c.Do(context.Background(), req, func() int64 { now++; return now })
		checkFuzzClass(t, r)
		if len(r.ChunkNS) != 0 || (r.OK() && r.PromptTokens <= 0 && r.CompletionTokens <= 0) {
			t.Fatalf("whole answer: %+v", r)
		}
	})
}

func fuzzDoAPI(t *testing.T, api string, body []byte, step, maxTokens int) Response {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", API: api, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	c.oa.HTTPClient = splitDoer{body, step}
	var now int64
	return c.Do(context.Background(), Request{Prompt: "x", MaxTokens: maxTokens}, func() int64 { now++; return now })
}
