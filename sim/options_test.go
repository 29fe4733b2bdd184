package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// stepEvent is one token event with the number of the step that gave it.
type stepEvent struct {
	seq    uint64
	tokens int
	step   uint64
	at     time.Duration
}

// runSeqs adds seqs to a fresh core at time 0 and runs it until idle, in virtual time.
func runSeqs(t *testing.T, cfg Config, seqs ...*seq) (*core, []stepEvent) {
	t.Helper()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	var events []stepEvent
	var c *core
	c = newCore(&cfg, func(s *seq, tokens int, at time.Duration) {
		events = append(events, stepEvent{s.id, tokens, c.steps, at})
	})
	for _, s := range seqs {
		if c.tooWide(s) || !c.fits(s) || !c.add(s) {
			t.Fatalf("seq %d refused", s.id)
		}
	}
	for !c.idle() {
		p := c.plan()
		if len(p.prefill) == 0 && len(p.decode) == 0 {
			t.Fatalf("stuck at %v", c.now)
		}
		c.apply(p)
	}
	for _, s := range seqs {
		if s.state != seqFinished || s.generated != s.maxTokens {
			t.Fatalf("seq %d: %d of %d tokens, state %v", s.id, s.generated, s.maxTokens, s.state)
		}
	}
	return c, events
}

// newSeq is a request of a prompt of promptTokens ids (distinct per id) for the core.
func newSeq(t *testing.T, cfg *Config, id uint64, promptTokens, maxTokens, n int, structured bool) *seq {
	t.Helper()
	req := Request{HasIDs: true, PromptIDs: ids(int(id)*100000, promptTokens), MaxTokens: maxTokens}
	p, err := buildPrompt(cfg, &req)
	if err != nil {
		t.Fatal(err)
	}
	return &seq{id: id, prompt: p, maxTokens: maxTokens, n: n, tokenCost: cfg.tokenCost(structured)}
}

// of returns the events of one seq.
func of(events []stepEvent, id uint64) []stepEvent {
	var out []stepEvent
	for _, e := range events {
		if e.seq == id {
			out = append(out, e)
		}
	}
	return out
}

// TestStructuredDecodeSteps: a constrained request takes StructuredDecodeFactor decode steps
// per token (counted in steps, not wall-clock time), and only its decode is slowed: its first
// token comes with the end of prefill like a plain one's.
func TestStructuredDecodeSteps(t *testing.T) {
	const maxTokens = 21
	for _, factor := range []float64{1.5, 2, 3, 4.25} {
		cfg := fastConfig()
		cfg.StructuredDecodeFactor = factor
		_, plain := runSeqs(t, cfg, newSeq(t, &cfg, 1, 50, maxTokens, 1, false))
		_, slow := runSeqs(t, cfg, newSeq(t, &cfg, 1, 50, maxTokens, 1, true))
		if len(plain) != maxTokens || len(slow) != maxTokens {
			t.Fatalf("factor %v: %d and %d token events", factor, len(plain), len(slow))
		}
		if plain[0].step != slow[0].step {
			t.Errorf("factor %v: first token at step %d, plain at %d", factor, slow[0].step, plain[0].step)
		}
		plainSteps := plain[maxTokens-1].step - plain[0].step
		slowSteps := slow[maxTokens-1].step - slow[0].step
		want := uint64(math.Ceil((maxTokens - 1) * factor))
		if plainSteps != maxTokens-1 || slowSteps != want {
			t.Errorf("factor %v: %d decode steps (plain %d), want %d", factor, slowSteps, plainSteps, want)
		}
		// Each step costs the same here (StepBase only), so modelled time scales alike.
		plainTime := plain[maxTokens-1].at - plain[0].at
		slowTime := slow[maxTokens-1].at - slow[0].at
		if got := float64(slowTime) / float64(plainTime); math.Abs(got-float64(want)/(maxTokens-1)) > 1e-9 {
			t.Errorf("factor %v: decode took %v, plain %v (ratio %v)", factor, slowTime, plainTime, got)
		}
	}
}

// TestStructuredSlowsOnlyItself: a plain request's tokens come at the same times next to a
// constrained request as next to a plain one (the slowdown is charged to the constrained one).
func TestStructuredSlowsOnlyItself(t *testing.T) {
	cfg := fastConfig()
	cfg.StepPerSeq = 100 * time.Microsecond
	cfg.StructuredDecodeFactor = 2
	// No KV term: the structured request's context grows more slowly, which alone would make
	// the steps a little shorter.
	cfg.StepPerKVToken = 0
	run := func(structured bool) []stepEvent {
		_, ev := runSeqs(t, cfg, newSeq(t, &cfg, 1, 40, 10, 1, false), newSeq(t, &cfg, 2, 40, 10, 1, structured))
		return ev
	}
	withPlain, withSlow := of(run(false), 1), of(run(true), 1)
	if !slices.Equal(withPlain, withSlow) {
		t.Errorf("plain request's tokens\n beside structured %v\n beside plain      %v", withSlow, withPlain)
	}
	if slow := of(run(true), 2); slow[len(slow)-1].step <= withPlain[len(withPlain)-1].step {
		t.Errorf("the structured request ended at step %d, no later than the plain one", slow[len(slow)-1].step)
	}
}

// TestNChoicesStepCosts checks n=3 on a hand-computed schedule: one prefill, then each decode
// step costs three sequences and reads three contexts, and every step gives a token to each.
func TestNChoicesStepCosts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Jitter = 0
	cfg.StepBase = 10 * time.Millisecond
	cfg.StepPerSeq = time.Millisecond
	cfg.StepPerKVToken = time.Microsecond
	cfg.PrefillPerToken = 100 * time.Microsecond
	s := newSeq(t, &cfg, 0, 40, 2, 3, false)
	c, ev := runSeqs(t, cfg, s)
	// Prefill of 40 tokens once: 10ms + 4ms. Decode: 10ms + 3 seqs + 3×(40+1) kv tokens.
	first := 14 * time.Millisecond
	second := first + 13*time.Millisecond + 123*time.Microsecond
	want := []stepEvent{{0, 1, 1, first}, {0, 2, 2, second}}
	if !slices.Equal(ev, want) {
		t.Errorf("schedule\n got %v\nwant %v", ev, want)
	}
	if c.generationTokens != 6 || c.success != 1 || c.slots != 0 {
		t.Errorf("generation tokens %d (want 6), success %d, slots %d", c.generationTokens, c.success, c.slots)
	}
	// 40 prompt tokens of 16-token blocks: 2 full blocks shared, and each choice its own
	// block for the partial last one and its 2 output tokens.
	if got := c.blocksFor(s); got != 2+3 {
		t.Errorf("blocks for n=3: %d, want 5", got)
	}
	if one := newSeq(t, &cfg, 9, 40, 2, 1, false); c.blocksFor(one) != (40+2+15)/16 {
		t.Errorf("blocks for n=1: %d", c.blocksFor(one))
	}
}

// TestNChoicesHoldBatchSlots: each choice is a batch slot, so an n=4 request fills a batch of 4
// and the next request waits for it, while an n=3 one leaves it room.
func TestNChoicesHoldBatchSlots(t *testing.T) {
	cfg := fastConfig()
	cfg.MaxBatch = 4
	for _, n := range []int{3, 4} {
		_, ev := runSeqs(t, cfg, newSeq(t, &cfg, 1, 20, 5, n, false), newSeq(t, &cfg, 2, 20, 5, 1, false))
		wide, next := of(ev, 1), of(ev, 2)
		waited := next[0].step > wide[len(wide)-1].step
		if waited != (n == 4) {
			t.Errorf("n=%d: the next request's first token at step %d, the wide one's last at %d", n, next[0].step, wide[len(wide)-1].step)
		}
	}
	c := newCore(&cfg, nil)
	if s := newSeq(t, &cfg, 1, 20, 5, 5, false); !c.tooWide(s) {
		t.Error("n=5 with MaxBatch 4 is not too wide")
	}
}

// choiceJSON is one choice of an answer, chat or completions, streamed or not.
type choiceJSON struct {
	Index   int    `json:"index"`
	Text    string `json:"text"`
	Message *struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"message"`
	Delta *struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type answerJSON struct {
	Choices []choiceJSON `json:"choices"`
	Usage   *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// TestNChoicesOverHTTP: n=3 gives three choices with their own indexes, each max_tokens long,
// usage of 3× the tokens, and streamed chunks that carry their choice's index; the same with
// the engine and in zero-cost mode, and /metrics counts every choice's tokens.
func TestNChoicesOverHTTP(t *testing.T) {
	const n, maxTokens = 3, 4
	for _, zero := range []bool{false, true} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		_, url := startServer(t, cfg)
		for _, chat := range []bool{true, false} {
			for _, stream := range []bool{false, true} {
				name := fmt.Sprintf("zero=%v chat=%v stream=%v", zero, chat, stream)
				body := tinyRequest(chat, stream, maxTokens)
				body["n"] = n
				body["stream_options"] = map[string]bool{"include_usage": true}
				o := send(t, t.Context(), url, endpoint(chat), "", body)
				if o.status != http.StatusOK || o.readErr != nil {
					t.Fatalf("%s: status %d, %v, %s", name, o.status, o.readErr, o.body)
				}
				var choices []choiceJSON
				var last answerJSON
				if stream {
					choices, last = streamedChoices(t, name, o, n*maxTokens)
				} else if err := json.Unmarshal(o.body, &last); err != nil {
					t.Fatalf("%s: %v: %s", name, err, o.body)
				} else {
					choices = last.Choices
				}
				checkChoices(t, name, choices, chat, stream, n, maxTokens)
				if u := last.Usage; u == nil || u.CompletionTokens != n*maxTokens || u.TotalTokens != u.PromptTokens+n*maxTokens {
					t.Errorf("%s: usage %+v, want %d completion tokens", name, u, n*maxTokens)
				}
			}
		}
		waitFor(t, url, "vllm:generation_tokens_total", 4*n*maxTokens)
	}
}

// streamedChoices returns the choices of each chunk of a streamed answer of chunks token chunks
// (one token each) and the usage chunk after them.
func streamedChoices(t *testing.T, name string, o observed, chunks int) ([]choiceJSON, answerJSON) {
	t.Helper()
	if !o.done || len(o.events) != chunks+1 {
		t.Fatalf("%s: %d events, done %v, want %d chunks and a usage chunk", name, len(o.events), o.done, chunks)
	}
	var out []choiceJSON
	for i, e := range o.events[:chunks] {
		var a answerJSON
		if err := json.Unmarshal(e, &a); err != nil || len(a.Choices) != 1 || a.Usage != nil {
			t.Fatalf("%s: chunk %d: %v %s", name, i, err, e)
		}
		out = append(out, a.Choices[0])
	}
	var last answerJSON
	if err := json.Unmarshal(o.events[chunks], &last); err != nil || len(last.Choices) != 0 {
		t.Fatalf("%s: usage chunk: %v %s", name, err, o.events[chunks])
	}
	return out, last
}

// checkChoices checks each choice's text, role and finish reason, and that the indexes come
// in order (0..n-1, once per token when streamed).
func checkChoices(t *testing.T, name string, choices []choiceJSON, chat, stream bool, n, maxTokens int) {
	t.Helper()
	text := make([]string, n)
	for i, ch := range choices {
		if ch.Index != i%n {
			t.Fatalf("%s: choice %d has index %d, want %d", name, i, ch.Index, i%n)
		}
		content, role := ch.Text, ""
		switch {
		case chat && stream && ch.Delta != nil:
			content, role = ch.Delta.Content, ch.Delta.Role
		case chat && ch.Message != nil:
			content, role = ch.Message.Content, ch.Message.Role
		}
		firstOfChoice, lastOfChoice := !stream || i < n, !stream || i >= len(choices)-n
		if chat && (role == "assistant") != firstOfChoice {
			t.Errorf("%s: choice %d: role %q", name, i, role)
		}
		if (ch.FinishReason != nil && *ch.FinishReason == "length") != lastOfChoice {
			t.Errorf("%s: choice %d: finish_reason %v", name, i, ch.FinishReason)
		}
		text[ch.Index] += content
	}
	if !stream && len(choices) != n {
		t.Fatalf("%s: %d choices, want %d", name, len(choices), n)
	}
	for i, s := range text {
		if s != strings.Repeat(fillerToken, maxTokens) {
			t.Errorf("%s: choice %d: %q", name, i, s)
		}
	}
}

// stepsOf returns the engine steps one request took, sent alone to an idle engine.
func stepsOf(t *testing.T, s *Server, url string, body map[string]any) uint64 {
	t.Helper()
	s.eng.mu.Lock()
	before := s.eng.core.steps
	s.eng.mu.Unlock()
	o := send(t, t.Context(), url, "/v1/chat/completions", "", body)
	if o.status != http.StatusOK {
		t.Fatalf("%v: status %d %s", body, o.status, o.body)
	}
	s.eng.mu.Lock()
	defer s.eng.mu.Unlock()
	return s.eng.core.steps - before
}

// TestStructuredOverHTTP: the server marks response_format JSON and tool requests as
// constrained, and the engine gives them StructuredDecodeFactor steps per decoded token
// (counted in the engine's steps, not measured in time). Their content is the filler, except
// that a JSON response_format answers with JSON (a minimal instance of its schema, as many
// tokens as the Counter makes of it, finish_reason "stop"); stop strings change nothing.
func TestStructuredOverHTTP(t *testing.T) {
	const maxTokens = 11
	cfg := fastConfig()
	cfg.StructuredDecodeFactor = 3
	s, url := startServer(t, cfg)
	tools := []map[string]any{{"type": "function", "function": map[string]any{"name": "f", "parameters": map[string]any{"type": "object"}}}}
	schema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "minLength": 8}}, "required": []string{"name"}}
	cases := []struct {
		name    string
		extra   map[string]any
		slow    bool
		content string // "" for the filler
	}{
		{"plain", nil, false, ""},
		{"json_object", map[string]any{"response_format": map[string]string{"type": "json_object"}}, true, `{}`},
		{"json_schema", map[string]any{"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "s", "schema": schema}}}, true, `{"name":"aaaaaaaa"}`},
		{"text format", map[string]any{"response_format": map[string]string{"type": "text"}}, false, ""},
		{"tools", map[string]any{"tools": tools}, true, ""},
		{"tools, tool_choice none", map[string]any{"tools": tools, "tool_choice": "none"}, false, ""},
		{"stop", map[string]any{"stop": []string{" tok", "t"}}, false, ""},
	}
	for _, tc := range cases {
		body := tinyRequest(true, false, maxTokens)
		for k, v := range tc.extra {
			body[k] = v
		}
		content, finish, tokens := strings.Repeat(fillerToken, maxTokens), "length", maxTokens
		if tc.content != "" {
			content, finish, tokens = tc.content, "stop", ApproxCounter{}.Count(tc.content)
		}
		want := uint64(1 + (tokens - 1)) // one prefill step, then a token a step
		if tc.slow {
			want = uint64(1 + 3*(tokens-1))
		}
		if got := stepsOf(t, s, url, body); got != want {
			t.Errorf("%s: %d steps, want %d", tc.name, got, want)
		}
		o := send(t, t.Context(), url, "/v1/chat/completions", "", body)
		var a answerJSON
		if err := json.Unmarshal(o.body, &a); err != nil || len(a.Choices) != 1 || a.Choices[0].Message == nil {
			t.Fatalf("%s: %v %s", tc.name, err, o.body)
		}
		if c := a.Choices[0]; c.Message.Content != content || *c.FinishReason != finish || a.Usage.CompletionTokens != tokens {
			t.Errorf("%s: answer %s, want %q (%d tokens), finish_reason %q", tc.name, o.body, content, tokens, finish)
		}
	}
}

// TestOptionErrorsOverHTTP: options out of range get HTTP 400 naming the field.
func TestOptionErrorsOverHTTP(t *testing.T) {
	cfg := fastConfig()
	cfg.MaxBatch = 2
	_, url := startServer(t, cfg)
	cases := map[string]map[string]any{
		`"temperature"`: {"temperature": -0.5},
		`"top_p"`:       {"top_p": 0},
		`"n"`:           {"n": 3}, // more choices than the batch holds
		`"logprobs"`:    {"logprobs": 50},
	}
	for want, extra := range cases {
		body := tinyRequest(true, true, 3)
		for k, v := range extra {
			body[k] = v
		}
		o := send(t, t.Context(), url, "/v1/chat/completions", "", body)
		var e struct {
			Error struct{ Message, Type string } `json:"error"`
		}
		if o.status != http.StatusBadRequest || json.Unmarshal(o.body, &e) != nil || !strings.Contains(e.Error.Message, want) || e.Error.Type != "invalid_request_error" {
			t.Errorf("%v: status %d %s, want 400 naming %s", extra, o.status, o.body, want)
		}
	}
}

// TestMaxCompletionTokensStreamed: max_completion_tokens sets the length like max_tokens, and
// max_tokens wins when both are given.
func TestMaxCompletionTokensStreamed(t *testing.T) {
	_, url := startServer(t, fastConfig())
	for _, tc := range []struct {
		body map[string]any
		want int
	}{
		{map[string]any{"max_completion_tokens": 6}, 6},
		{map[string]any{"max_completion_tokens": 6, "max_tokens": 2}, 2},
	} {
		body := tinyRequest(true, true, 0)
		delete(body, "max_tokens")
		for k, v := range tc.body {
			body[k] = v
		}
		body["stream_options"] = map[string]bool{"include_usage": true}
		o := send(t, t.Context(), url, "/v1/chat/completions", "", body)
		choices, last := streamedChoices(t, fmt.Sprint(tc.body), o, tc.want)
		checkChoices(t, fmt.Sprint(tc.body), choices, true, true, 1, tc.want)
		if last.Usage == nil || last.Usage.CompletionTokens != tc.want {
			t.Errorf("%v: usage %+v, want %d", tc.body, last.Usage, tc.want)
		}
	}
}

func TestStructuredDecodeFactorValidate(t *testing.T) {
	for _, tc := range []struct {
		v  float64
		ok bool
	}{{0, true}, {1, true}, {1.5, true}, {100, true}, {0.5, false}, {-1, false}, {101, false}, {math.NaN(), false}, {math.Inf(1), false}} {
		cfg := DefaultConfig()
		cfg.StructuredDecodeFactor = tc.v
		if err := cfg.validate(); (err == nil) != tc.ok || err != nil && !strings.Contains(err.Error(), "StructuredDecodeFactor") {
			t.Errorf("StructuredDecodeFactor %v: %v", tc.v, err)
		}
	}
	cfg := DefaultConfig()
	if cfg.tokenCost(false) != decodeUnit || cfg.tokenCost(true) != 1500 {
		t.Errorf("default costs %d and %d", cfg.tokenCost(false), cfg.tokenCost(true))
	}
	cfg.StructuredDecodeFactor = 0
	if cfg.tokenCost(true) != decodeUnit {
		t.Errorf("factor 0 costs %d", cfg.tokenCost(true))
	}
}
