package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/testenv"
	openai "github.com/sashabaranov/go-openai"
)

// The streaming benchmarks report ns per content chunk (one op = one chunk). Each response
// holds benchChunks vLLM-shaped chat chunks; the loopback server writes them 64 KiB per
// flush, so the figure is the client's cost, not one syscall per event.
//
//	go test ./client -run XXX -bench Stream -benchtime 200000x
//
// Loopback/* include the server's writes and the kernel (same process, other core);
// Memory/* read the same bytes from memory and are the client's CPU alone.
const benchChunks = 2000

func benchBody() []byte {
	var b bytes.Buffer
	head := `{"id":"chatcmpl-8d1c6e0b2f4a4a0e9b1f","object":"chat.completion.chunk","created":1732870000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[`
	fmt.Fprintf(&b, "data: %s{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", head)
	for i := 0; i < benchChunks; i++ {
		fmt.Fprintf(&b, "data: %s{\"index\":0,\"delta\":{\"content\":\" token%d\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", head, i%1000)
	}
	fmt.Fprintf(&b, "data: %s{\"index\":0,\"delta\":{\"content\":\"\"},\"logprobs\":null,\"finish_reason\":\"length\"}]}\n\n", head)
	fmt.Fprintf(&b, "data: %s],\"usage\":{\"prompt_tokens\":512,\"total_tokens\":%d,\"completion_tokens\":%d,\"prompt_tokens_details\":{\"cached_tokens\":256}}}\n\n", head, 512+benchChunks, benchChunks)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

func benchServer(body []byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for p := body; len(p) > 0; {
			n := min(len(p), 64<<10)
			w.Write(p[:n])
			w.(http.Flusher).Flush()
			p = p[n:]
		}
	}))
}

// memDoer answers every request with body from memory.
type memDoer struct{ body []byte }

func (d memDoer) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
	}
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(d.body)), Request: req}, nil
}

// runChunks issues responses of benchChunks chunks until b.N chunks were read.
func runChunks(b *testing.B, one func() (int, error)) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := int64(testenv.CPUTime())
	defer func() { b.ReportMetric(float64(int64(testenv.CPUTime())-cpu0)/float64(b.N), "cpu-ns/chunk") }()
	for done := 0; done < b.N; {
		n, err := one()
		if err != nil {
			b.Fatal(err)
		}
		if n != benchChunks {
			b.Fatalf("%d chunks, want %d", n, benchChunks)
		}
		done += n
	}
}

func benchOurs(b *testing.B, c *Client) {
	clock := newClock()
	req := Request{Prompt: "hello", MaxTokens: benchChunks}
	runChunks(b, func() (int, error) {
		r := c.Do(context.Background(), req, clock)
		if !r.OK() {
			return 0, fmt.Errorf("%s: %s", r.ErrorClass, r.ErrorMessage)
		}
		return len(r.ChunkNS), nil
	})
}

func benchRecv(b *testing.B, oc *openai.Client, raw bool) {
	//lint:ignore SA1019 the servers we replay against read max_tokens
	req := openai.ChatCompletionRequest{Model: "m", MaxTokens: benchChunks,
		Messages:      []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}},
		StreamOptions: &openai.StreamOptions{IncludeUsage: true}}
	runChunks(b, func() (int, error) {
		s, err := oc.CreateChatCompletionStream(context.Background(), req)
		if err != nil {
			return 0, err
		}
		defer s.Close()
		n := 0
		for {
			if raw {
				line, err := s.RecvRaw()
				if errors.Is(err, io.EOF) {
					return n, nil
				}
				if err != nil {
					return n, err
				}
				// RecvRaw only frames; finding content still needs a parse.
				if f, _ := parseFrame(line); f.content() {
					n++
				}
				continue
			}
			resp, err := s.Recv()
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			if err != nil {
				return n, err
			}
			if len(resp.Choices) > 0 && resp.Choices[0].Delta.Content != "" {
				n++
			}
		}
	})
}

func BenchmarkStream(b *testing.B) {
	body := benchBody()
	srv := benchServer(body)
	defer srv.Close()
	mem := memDoer{body}

	loop := func(b *testing.B) *Client { return newClient(b, srv.URL, APIChat, nil) }
	inMem := func(b *testing.B) *Client {
		c := newClient(b, "http://127.0.0.1:1", APIChat, nil)
		c.oa.HTTPClient = mem
		return c
	}
	oaLoop := func(b *testing.B) *openai.Client { return openai.NewClientWithConfig(loop(b).OpenAIConfig()) }
	oaMem := func(b *testing.B) *openai.Client {
		cfg := openai.DefaultConfig("k")
		cfg.BaseURL = "http://127.0.0.1:1/v1"
		cfg.HTTPClient = mem
		return openai.NewClientWithConfig(cfg)
	}

	b.Run("Loopback/ours", func(b *testing.B) { benchOurs(b, loop(b)) })
	b.Run("Loopback/go-openai-Recv", func(b *testing.B) { benchRecv(b, oaLoop(b), false) })
	b.Run("Loopback/go-openai-RecvRaw", func(b *testing.B) { benchRecv(b, oaLoop(b), true) })
	b.Run("Loopback/read-only", func(b *testing.B) {
		// The floor: the same responses read with io.Copy, no SSE work at all.
		hc := loop(b).oa.HTTPClient
		runChunks(b, func() (int, error) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", bytes.NewReader([]byte(`{}`)))
			resp, err := hc.Do(req)
			if err != nil {
				return 0, err
			}
			defer resp.Body.Close()
			_, err = io.Copy(io.Discard, resp.Body)
			return benchChunks, err
		})
	})
	b.Run("Memory/ours", func(b *testing.B) { benchOurs(b, inMem(b)) })
	b.Run("Memory/go-openai-Recv", func(b *testing.B) { benchRecv(b, oaMem(b), false) })
	b.Run("Memory/go-openai-RecvRaw", func(b *testing.B) { benchRecv(b, oaMem(b), true) })
}

// BenchmarkParseFrame is the scanner alone on a typical vLLM content chunk.
func BenchmarkParseFrame(b *testing.B) {
	p := []byte(`{"id":"chatcmpl-8d1c6e0b2f4a4a0e9b1f","object":"chat.completion.chunk","created":1732870000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" token1"},"logprobs":null,"finish_reason":null}]}`)
	b.SetBytes(int64(len(p)))
	cpu0 := int64(testenv.CPUTime())
	for b.Loop() {
		if f, ok := parseFrame(p); !ok || !f.content() {
			b.Fatal("no content")
		}
	}
	b.ReportMetric(float64(int64(testenv.CPUTime())-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkRequest is the client's cost per request apart from chunks: building the body with
// go-openai's types (a 4 KB prompt), the http.Request, and reading a minimal 1-chunk stream
// from memory.
func BenchmarkRequest(b *testing.B) {
	body := []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	for _, api := range []string{APIChat, APICompletions} {
		b.Run(api, func(b *testing.B) {
			c := newClient(b, "http://127.0.0.1:1", api, func(c *Config) { c.ExtraBody = map[string]any{"ignore_eos": true} })
			c.oa.HTTPClient = memDoer{body}
			req := Request{Prompt: strings.Repeat("The quick <brown> fox & co. ", 150), MaxTokens: 1}
			req.Messages = []chat.Message{{Role: "user", Content: req.Prompt}}
			clock := newClock()
			b.ReportAllocs()
			cpu0 := int64(testenv.CPUTime())
			for b.Loop() {
				if r := c.Do(context.Background(), req, clock); !r.OK() {
					b.Fatal(r.ErrorMessage)
				}
			}
			b.ReportMetric(float64(int64(testenv.CPUTime())-cpu0)/float64(b.N), "cpu-ns/req")
		})
	}
}
