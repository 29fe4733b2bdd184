package client

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"unicode/utf8"
)

// FuzzStream feeds arbitrary bytes as a 200 SSE answer through Do: it must never panic,
// must end in a valid error class with a bounded message, must not count more chunks than
// data lines, must not depend on how the bytes were split across socket reads, and must
// call a response ok only when it is a complete, well-formed stream. The low six bits of
// split choose the read size; the top two the request's max_tokens (0 to 3).
func FuzzStream(f *testing.F) {
	f.Add([]byte(string(benchBody()[:2000])+"data: [DONE]\n\n"), uint8(7))
	f.Add([]byte("data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\r\n\r\ndata: [DONE]"), uint8(0))
	f.Add([]byte(": ping\n\nevent: error\ndata: {\"error\":{\"message\":\"boom\",\"code\":503}}\n\n"), uint8(3))
	f.Add([]byte("{\"error\":{\"message\":\"not a stream\"}}"), uint8(1))
	f.Add([]byte("data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"), uint8(0x85))
	f.Add([]byte("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {garbage\n\ndata: {\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"), uint8(0x42))
	f.Fuzz(func(t *testing.T, body []byte, split uint8) {
		maxTokens := int(split >> 6)
		whole := fuzzDo(t, body, len(body)+1, maxTokens)
		parts := fuzzDo(t, body, int(split)%64+1, maxTokens)
		switch whole.ErrorClass {
		case "", ErrStreamBroken, ErrBadStream, ErrShort, ErrHTTP429, ErrHTTP4xx, ErrHTTP5xx:
		default:
			t.Fatalf("class %q", whole.ErrorClass)
		}
		if m := whole.ErrorMessage; len(m) > maxMessage+len("…") || !utf8.ValidString(m) || (whole.ErrorClass != "") != (m != "") {
			t.Fatalf("class %q with message %q", whole.ErrorClass, m)
		}
		if n := bytes.Count(body, []byte("data:")); len(whole.ChunkNS) > n {
			t.Fatalf("%d chunks from %d data lines", len(whole.ChunkNS), n)
		}
		if len(whole.ChunkNS) != len(parts.ChunkNS) || whole.PromptTokens != parts.PromptTokens ||
			whole.CompletionTokens != parts.CompletionTokens || whole.CachedTokens != parts.CachedTokens ||
			whole.ErrorClass != parts.ErrorClass || whole.ErrorMessage != parts.ErrorMessage {
			t.Fatalf("read split changes the result:\nwhole %+v\nparts %+v", whole, parts)
		}
		switch whole.ErrorClass {
		case "":
			checkComplete(t, body, whole, maxTokens)
		case ErrShort:
			if whole.CompletionTokens < 0 || whole.CompletionTokens >= maxTokens {
				t.Fatalf("short with %d completion tokens of %d", whole.CompletionTokens, maxTokens)
			}
		}
	})
}

// checkComplete holds an ok response to what ok means: every data line before [DONE] is a
// JSON object, [DONE] came, usage came (it is asked for), and content came when asked for.
func checkComplete(t *testing.T, body []byte, r Response, maxTokens int) {
	t.Helper()
	done := false
	for _, l := range bytes.Split(body, []byte{'\n'}) {
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if !bytes.HasPrefix(l, []byte("data:")) {
			continue
		}
		p := bytes.TrimSpace(l[5:])
		if string(p) == "[DONE]" {
			done = true
			break
		}
		if _, ok := oracleFrame(p); !ok {
			t.Fatalf("ok with a data line that is not a JSON object: %q", l)
		}
	}
	if !done || (r.PromptTokens < 0 && r.CompletionTokens < 0) || (maxTokens > 0 && len(r.ChunkNS) == 0) {
		t.Fatalf("ok without [DONE] (%v), usage (%d/%d) or content (%d chunks of max %d)",
			done, r.PromptTokens, r.CompletionTokens, len(r.ChunkNS), maxTokens)
	}
}

func fuzzDo(t *testing.T, body []byte, step, maxTokens int) Response {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", API: APIChat, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	c.oa.HTTPClient = splitDoer{body, step}
	var now int64
	return c.Do(context.Background(), Request{Prompt: "x", MaxTokens: maxTokens}, func() int64 { now++; return now })
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
