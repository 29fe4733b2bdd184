package client

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
)

// FuzzStream feeds arbitrary bytes as a 200 SSE answer through Do: it must never panic,
// must end in a valid error class, must not count more chunks than data lines, and must not
// depend on how the bytes were split across socket reads.
func FuzzStream(f *testing.F) {
	f.Add([]byte(string(benchBody()[:2000])+"data: [DONE]\n\n"), uint8(7))
	f.Add([]byte("data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\r\n\r\ndata: [DONE]"), uint8(0))
	f.Add([]byte(": ping\n\nevent: error\ndata: {\"error\":{\"message\":\"boom\",\"code\":503}}\n\n"), uint8(3))
	f.Add([]byte("{\"error\":{\"message\":\"not a stream\"}}"), uint8(1))
	f.Fuzz(func(t *testing.T, body []byte, split uint8) {
		whole := fuzzDo(t, body, len(body)+1)
		parts := fuzzDo(t, body, int(split)%64+1)
		switch whole.ErrorClass {
		case "", ErrStreamBroken, ErrHTTP429, ErrHTTP4xx, ErrHTTP5xx:
		default:
			t.Fatalf("class %q", whole.ErrorClass)
		}
		if n := bytes.Count(body, []byte("data:")); len(whole.ChunkNS) > n {
			t.Fatalf("%d chunks from %d data lines", len(whole.ChunkNS), n)
		}
		if len(whole.ChunkNS) != len(parts.ChunkNS) || whole.PromptTokens != parts.PromptTokens ||
			whole.CompletionTokens != parts.CompletionTokens || whole.CachedTokens != parts.CachedTokens ||
			whole.ErrorClass != parts.ErrorClass || whole.ErrorMessage != parts.ErrorMessage {
			t.Fatalf("read split changes the result:\nwhole %+v\nparts %+v", whole, parts)
		}
	})
}

func fuzzDo(t *testing.T, body []byte, step int) Response {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", API: APIChat, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	c.oa.HTTPClient = splitDoer{body, step}
	var now int64
	return c.Do(context.Background(), Request{Prompt: "x"}, func() int64 { now++; return now })
}

// splitDoer answers with body, delivered step bytes per Read.
type splitDoer struct {
	body []byte
	step int
}

func (d splitDoer) Do(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{},
		Body: io.NopCloser(&stepReader{b: d.body, step: d.step}), Request: req}, nil
}

type stepReader struct {
	b    []byte
	step int
}

func (r *stepReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.step)], r.b)
	r.b = r.b[n:]
	return n, nil
}
