package checks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// breakage is the one behaviour a fakeServer gets wrong.
type breakage int

const (
	behaveWell      breakage = iota
	burstStream              // streams every chunk in one write at the end
	badToolArgs              // tool arguments that parse but break the declared parameters
	badSchemaJSON            // json_schema content that parses but breaks the schema
	ignoreStop               // goes on past the stop string
	ignoreMaxTokens          // answers 40 tokens whatever max_tokens says
	rejectSampling           // refuses top_p with a 400
	noRetryAfter             // 429s without Retry-After
)

// fakeServer is a small OpenAI-compatible chat server that behaves as a real model's server
// would for the probes' prompts, but for the one behaviour it breaks. It streams a chunk every
// chunkGap, so that an incremental stream is visibly one.
type fakeServer struct {
	broken breakage
	turn   atomic.Int64 // of the overload burst
	// endAtOnce is how many streamed text answers end before any content, as a model that
	// draws its end-of-sequence token first does.
	endAtOnce atomic.Int64
}

const chunkGap = 4 * time.Millisecond

// overloadHeader marks the requests of the test's overload burst, which the server answers
// with 429s and 200s in turn.
const overloadHeader = "X-Test-Overload"

// fakeRequest is what the fake reads of a body.
type fakeRequest struct {
	Stream         bool            `json:"stream"`
	MaxTokens      int             `json:"max_tokens"`
	Stop           []string        `json:"stop"`
	Tools          json.RawMessage `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	TopP *float64 `json:"top_p"`
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(overloadHeader) != "" {
		f.overloaded(w)
		return
	}
	var q fakeRequest
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		http.Error(w, `{"error":{"message":"bad body"}}`, http.StatusBadRequest)
		return
	}
	if q.TopP != nil && f.broken == rejectSampling {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"top_p is not supported","type":"invalid_request_error"}}`)
		return
	}
	switch {
	case len(q.Tools) > 0 && len(q.ToolChoice) > 0:
		args := `{"city":"Lisbon","unit":"celsius","days":3}`
		if f.broken == badToolArgs {
			args = `{"city":"Lisbon","unit":"kelvin","days":"three"}`
		}
		f.answer(w, q, nil, args)
	case q.ResponseFormat != nil && q.ResponseFormat.Type == "json_schema":
		content := `{"name":"Ada Lovelace","age":36,"languages":["English","French"]}`
		if f.broken == badSchemaJSON {
			content = `{"name":"Ada Lovelace","age":"thirty-six"}`
		}
		f.answer(w, q, pieces(content, 5), "")
	case q.Stream && f.endAtOnce.Add(-1) >= 0:
		f.answer(w, q, nil, "")
	default:
		f.answer(w, q, f.words(q), "")
	}
}

// overloaded answers the overload burst: every other request a 429, with Retry-After unless
// that is the breakage.
func (f *fakeServer) overloaded(w http.ResponseWriter) {
	if f.turn.Add(1)%2 == 0 {
		fmt.Fprint(w, `{}`)
		return
	}
	if f.broken != noRetryAfter {
		w.Header().Set("Retry-After", "1")
	}
	http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
}

// words is a text answer as tokens: a model that does as the prompt asks (writing the stop
// word when asked to), cut at the stop string and at max_tokens unless those are broken.
func (f *fakeServer) words(q fakeRequest) []string {
	var toks []string
	for i := range 40 {
		if i%3 == 0 {
			toks = append(toks, " STOPWORD")
		} else {
			toks = append(toks, fmt.Sprintf(" w%d", i))
		}
	}
	toks[0] = "Sure:"
	if f.broken != ignoreMaxTokens && q.MaxTokens > 0 && q.MaxTokens < len(toks) {
		toks = toks[:q.MaxTokens]
	}
	if f.broken != ignoreStop {
		for i, t := range toks {
			for _, s := range q.Stop {
				if strings.Contains(t, s) {
					return toks[:i]
				}
			}
		}
	}
	return toks
}

// pieces cuts s into n pieces.
func pieces(s string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, s[i*len(s)/n:(i+1)*len(s)/n])
	}
	return out
}

// answer writes content tokens (or a call of get_weather with args), streamed or not.
func (f *fakeServer) answer(w http.ResponseWriter, q fakeRequest, tokens []string, args string) {
	usage := fmt.Sprintf(`"usage":{"prompt_tokens":10,"completion_tokens":%d,"total_tokens":%d}`, len(tokens), 10+len(tokens))
	if args != "" {
		tokens = pieces(args, 4)
		usage = `"usage":{"prompt_tokens":10,"completion_tokens":12,"total_tokens":22}`
	}
	if !q.Stream {
		w.Header().Set("Content-Type", "application/json")
		msg := fmt.Sprintf(`{"role":"assistant","content":%s}`, jsonString(strings.Join(tokens, "")))
		if args != "" {
			msg = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":%s}}]}`, jsonString(args))
		}
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":%s,"finish_reason":"stop"}],%s}`, msg, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flush := func() { w.(http.Flusher).Flush() }
	flush()
	var burst strings.Builder
	emit := func(event string) {
		if f.broken == burstStream {
			burst.WriteString(event)
			return
		}
		time.Sleep(chunkGap)
		fmt.Fprint(w, event)
		flush()
	}
	for i, t := range tokens {
		delta := fmt.Sprintf(`{"content":%s}`, jsonString(t))
		if args != "" {
			delta = fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}`, jsonString(t))
			if i == 0 {
				delta = fmt.Sprintf(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":%s}}]}`, jsonString(t))
			}
		}
		emit(fmt.Sprintf("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", delta))
	}
	emit(fmt.Sprintf("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: {\"id\":\"x\",\"choices\":[],%s}\n\ndata: [DONE]\n\n", usage))
	if f.broken == burstStream {
		time.Sleep(time.Duration(len(tokens)+1) * chunkGap) // as long as streaming would have taken
		fmt.Fprint(w, burst.String())
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
