package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// optionServer is a loopback OpenAI-compatible server for the options tests: it keeps every
// request body by its X-Request-Id, counts a chat prompt as a server does (the model's template
// with the request's tools, then its tokenizer), and answers streamed or not with n choices of
// max tokens each, one token every gap, stopping when the client goes away.
type optionServer struct {
	tok tokenizer.Tokenizer
	tpl *chat.Renderer
	gap time.Duration

	mu     sync.Mutex
	bodies map[string][]byte
}

// serverMaxTokens is the output of a request sent without a cap (a logged cancellation's).
const serverMaxTokens = 1000

// optionRequest is what the server reads of a body.
type optionRequest struct {
	Messages            []chat.Message  `json:"messages"`
	Prompt              string          `json:"prompt"`
	Tools               json.RawMessage `json:"tools"`
	Stream              bool            `json:"stream"`
	N                   int             `json:"n"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (s *optionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies[r.Header.Get("X-Request-Id")] = b
	s.mu.Unlock()
	var req optionRequest
	if err := json.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	prompt, err := s.count(&req, strings.HasSuffix(r.URL.Path, "/chat/completions"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n, each := max(1, req.N), max(req.MaxTokens, req.MaxCompletionTokens)
	if each == 0 {
		each = serverMaxTokens // no cap: the server's own limit, as a real server's context
	}
	usage := fmt.Sprintf(`"usage":{"prompt_tokens":%d,"completion_tokens":%d}`, prompt, n*each)
	if !req.Stream {
		s.answer(w, r, n, each, usage)
		return
	}
	s.stream(w, r, n, each, usage, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
}

// count is the prompt tokens the server sees: a completions prompt encoded with the
// tokenizer's specials, a chat one rendered with the template (tools included) when there is
// one.
func (s *optionServer) count(req *optionRequest, chat bool) (int, error) {
	if s.tpl == nil || !chat {
		return len(s.tok.Encode(req.Prompt, true)), nil
	}
	text, err := s.tpl.RenderTools(req.Messages, req.Tools)
	if err != nil {
		return 0, err
	}
	return len(s.tok.Encode(text, false)), nil
}

// answer writes one JSON completion after the time its tokens take.
func (s *optionServer) answer(w http.ResponseWriter, r *http.Request, n, each int, usage string) {
	select {
	case <-time.After(time.Duration(each) * s.gap):
	case <-r.Context().Done():
		return
	}
	choices := make([]string, n)
	for i := range choices {
		choices[i] = fmt.Sprintf(`{"index":%d,"message":{"role":"assistant","content":%q},"finish_reason":"length"}`, i, strings.Repeat(" x", each))
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"object":"chat.completion","choices":[%s],%s}`, strings.Join(choices, ","), usage)
}

// stream writes each token of each choice as a chunk, a token every gap.
func (s *optionServer) stream(w http.ResponseWriter, r *http.Request, n, each int, usage string, withUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	for tok := range each {
		if tok > 0 {
			select {
			case <-time.After(s.gap):
			case <-r.Context().Done():
				return
			}
		}
		for c := range n {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":%d,\"text\":\" x\",\"delta\":{\"content\":\" x\"},\"finish_reason\":null}]}\n\n", c)
		}
		fl.Flush()
	}
	for c := range n {
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":%d,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n", c)
	}
	if withUsage {
		fmt.Fprintf(w, "data: {\"choices\":[],%s}\n\n", usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
}

// body is the body received with request id id.
func (s *optionServer) body(id string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[id]
}
