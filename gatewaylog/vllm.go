package gatewaylog

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// vllmSchema reads vLLM's server log with request logging on (vllm serve
// --enable-log-requests; before it, request logging was on unless --disable-log-requests), as
// the server prints it, one text line a log record. The lines read were learnt from vLLM's
// source (vllm-project/vllm), file and commit as read:
//   - the record prefix, vllm/logger.py (_FORMAT, _DATE_FORMAT) @ 43f45549a6dd3373791c175002ac033c54ef2a03:
//     "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s" with the date
//     "%m-%d %H:%M:%S" (no year: Record.Year, --log-year, gives it); the oldest releases have
//     "filename:lineno]" without the '[' (@ 00656a8e7442dec75d69881cee20ffe38f46f606), and
//     VLLM_LOGGING_PREFIX or the process tag "(APIServer pid=N) " may come first. A logging
//     config of the user's (VLLM_LOGGING_CONFIG_PATH) may add milliseconds
//     ("%(asctime)s.%(msecs)03d", or Python's default "2025-01-24 09:20:46,847"): read too.
//     vllm/logging_utils/formatter.py (ColoredFormatter) @ 85c990cb82cbdbad90893157b10212539151c1e4
//     colours the level, time and file with ANSI codes on a terminal: stripped. Its
//     NewLineFormatter continues a message's newlines on lines of their own, but the request
//     lines print their strings with %r or inside reprs, so each is one line.
//   - RequestLogger.log_inputs, vllm/entrypoints/logger.py:
//     @ 01ff1262941ab5fce2c75eefa6443f53f4a4732d, INFO "Received request %s: prompt: %r,
//     params: %s, prompt_token_ids: %s, prompt_embeds shape: %s, lora_request: %s,
//     prompt_adapter_request: %s." (earlier releases without prompt_embeds shape, and before
//     logger.py, vllm/engine/async_llm_engine.py's "... prompt: %r, sampling_params: %s,
//     prompt_token_ids: %s, lora_request: %s."); and @ 63c2b7abcd705edb754604f83ac72a4269c05a52
//     INFO "Received request %s: params: %s, lora_request: %s." with the prompt moved to DEBUG,
//     "Request %s details: prompt: %r, prompt_token_ids: %s, prompt_embeds shape: %s." (printed
//     only at VLLM_LOGGING_LEVEL=DEBUG, before the received line).
//   - RequestLogger.log_outputs (same file and commit 63c2b7ab, with --enable-log-outputs):
//     INFO "Generated response %s%s: output: %r, output_token_ids: %s, finish_reason: %s",
//     the second %s " (streaming delta)" or " (streaming complete)" for a stream.
//   - SamplingParams.__repr__, vllm/sampling_params.py @ 00388f6573ccfcffad607b8c9ecdf341a4669ceb:
//     "SamplingParams(n=1, presence_penalty=..., temperature=..., top_p=..., seed=None,
//     stop=[], ..., max_tokens=..., ...)" (stop normalized to a list); BeamSearchParams and
//     PoolingParams are their Structs' reprs. Read with the Python-repr reader (pyrepr.go).
//
// A request is its received line (arrival: the line's time, to the second unless the format
// has milliseconds), joined by request id with its details line (the prompt count, in the
// releases that moved it to DEBUG) and its generated-response lines (output tokens: the
// non-streaming or "streaming complete" lines' token ids, else the deltas' summed; stream;
// finish_reason). The prompt's count is its token id list's length, or prompt_embeds'
// first dimension; the prompt text is never kept. From the params: max_tokens, temperature,
// top_p, n, seed, stop; PoolingParams makes it an embeddings request. A LoRA request's model
// is its lora_name; otherwise the model is not on these lines (it is the server's).
//
// What the log cannot say: the output count of a request without generated lines (vLLM
// before log_outputs, or without --enable-log-outputs): kept with 0 output tokens and
// counted (ingest.Counts.OutputUnknown); the prompt count in the releases that log ids at
// DEBUG when the log is at INFO (such a request is rejected, saying so); the true prompt
// count where --max-log-len cut the id list (a count equal to it is a lower bound); whether
// the client sent max_tokens (the server fills in its default, the context left); a
// non-streaming request's stream flag when outputs are not logged; cached prompt tokens
// (none logged); the API, but from the id's prefix (chatcmpl- is chat, embd- embeddings,
// resp_ responses; cmpl- was chat's too in early releases, so is left unsaid). uvicorn's
// access lines ("INFO:     127.0.0.1:5000 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
// have no time and no request id, so they cannot be joined: those of model endpoints are
// left out uncounted (the received line counts the request), those of others (health,
// metrics) skipped as no model request. Every other line is left out uncounted.
var vllmSchema = Schema{
	Format:  "vllm-log",
	Doc:     "vLLM server log with --enable-log-requests (vllm/entrypoints/logger.py RequestLogger, vllm/sampling_params.py, vllm/logger.py)",
	Reads:   "vLLM's server log under --enable-log-requests (prompt token ids at DEBUG)",
	Example: `INFO 01-24 09:20:46 [logger.py:43] Received request cmpl-1: prompt: 'hi', params: SamplingParams(max_tokens=256), prompt_token_ids: [6023, 0], lora_request: None.`,
	Lines:   true,
	Sniff: func(first []byte) bool {
		return vllmSniffRE.MatchString(stripANSI(string(first)))
	},
	Read:   readVLLM,
	Merge:  mergeVLLM,
	Finish: finishVLLM,
}

var (
	// vllmPrefixRE finds a record's level, time and source file; the message follows it.
	vllmPrefixRE = regexp.MustCompile(`(?:^|\s)(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) ((?:\d{4}-)?\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d{1,6})?) \[?[\w./-]*\.py:\d+\] `)
	// vllmSniffRE is the prefix at the start of a line, for --format auto.
	vllmSniffRE = regexp.MustCompile(`^(?:\(\w+ pid=\d+\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d{1,6})? \[?[\w./-]*\.py:\d+\] `)
	// uvicornAccessRE is uvicorn's access line (no time, no request id).
	uvicornAccessRE = regexp.MustCompile(`(?:^|\s)(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):\s+\S+ - "[A-Z]+ (\S+) HTTP/[0-9.]+" \d{3}`)
	// ansiRE is an ANSI colour (SGR) sequence.
	ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*m")
)

// vllmModelPaths are the endpoints whose requests vLLM logs as received lines.
var vllmModelPaths = map[string]bool{
	"/v1/chat/completions": true, "/v1/completions": true, "/v1/embeddings": true,
	"/v1/responses": true, "/v1/messages": true, "/pooling": true, "/classify": true,
	"/score": true, "/v1/score": true, "/rerank": true, "/v1/rerank": true, "/v2/rerank": true,
	"/v1/audio/transcriptions": true, "/v1/audio/translations": true,
}

// vllmState is what a request's lines have said so far, until Finish settles its counts.
type vllmState struct {
	promptKnown bool
	// whole sums the output ids of lines that log a choice's whole output (non-streaming,
	// "streaming complete"); delta sums the streaming deltas', used when no whole line has ids.
	whole, delta         int
	wholeSeen, deltaSeen bool
}

func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiRE.ReplaceAllString(s, "")
}

func readVLLM(rec Record) (Entry, error) {
	e := NewEntry()
	line := strings.TrimRight(stripANSI(string(rec.Raw)), "\r\n \t")
	if m := uvicornAccessRE.FindStringSubmatch(line); m != nil {
		path, _, _ := strings.Cut(m[1], "?")
		if vllmModelPaths[path] {
			return e, ErrCountedElsewhere
		}
		return e, ErrNotModelRequest
	}
	loc := vllmPrefixRE.FindStringSubmatchIndex(line)
	if loc == nil {
		return e, ErrNotRecord
	}
	msg := line[loc[1]:]
	var kind Part
	var id, fields string
	switch {
	case strings.HasPrefix(msg, "Received request "):
		rest := msg[len("Received request "):]
		i := firstIndex(rest, ": prompt: ", ": params: ", ": sampling_params: ")
		if i < 0 {
			return e, &FieldError{Field: "params", Err: fmt.Errorf("a received line without its params")}
		}
		id, fields, kind = rest[:i], rest[i+2:], Whole
	case strings.HasPrefix(msg, "Request ") && strings.Contains(msg[len("Request "):], " details: "):
		rest := msg[len("Request "):]
		i := strings.Index(rest, " details: ")
		id, fields, kind = rest[:i], rest[i+len(" details: "):], Leads
	case strings.HasPrefix(msg, "Generated response "):
		rest := msg[len("Generated response "):]
		i := strings.Index(rest, ": output: ")
		if i < 0 {
			return e, &FieldError{Field: "output", Err: fmt.Errorf("a generated-response line without its output")}
		}
		id, fields, kind = rest[:i], rest[i+2:], Follows
	default:
		return e, ErrNotRecord
	}
	ts := line[loc[2]:loc[3]]
	t, err := ParseText(strings.Replace(ts, ",", ".", 1), rec.Year)
	if err != nil {
		return e, &FieldError{Field: "time", Err: err}
	}
	e.Start, e.Part = t, kind
	streaming, delta := false, false
	if kind == Follows {
		if s, ok := strings.CutSuffix(id, " (streaming delta)"); ok {
			id, streaming, delta = s, true, true
		} else if s, ok := strings.CutSuffix(id, " (streaming complete)"); ok {
			id, streaming = s, true
		}
	}
	if id == "" {
		return e, &FieldError{Field: "request_id", Err: fmt.Errorf("empty")}
	}
	e.ID = id
	vals, err := vllmFields(fields)
	if err != nil {
		return e, err
	}
	switch kind {
	case Whole:
		err = vllmReceived(&e, vals)
	case Leads:
		err = vllmPrompt(&e, vals)
	case Follows:
		err = vllmGenerated(&e, vals, streaming, delta)
	}
	return e, err
}

// firstIndex is the least index in s of any of subs, -1 when none is there.
func firstIndex(s string, subs ...string) int {
	best := -1
	for _, sub := range subs {
		if i := strings.Index(s, sub); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// vllmFields reads a message's "label: value, label: value." list, each value a Python
// repr (a bare word too: finish_reason is printed with %s), into values by label.
func vllmFields(s string) (map[string]Value, error) {
	out := map[string]Value{}
	for len(s) > 0 {
		j := strings.Index(s, ": ")
		if j <= 0 || strings.Trim(s[:j], "abcdefghijklmnopqrstuvwxyz_ ") != "" {
			return nil, &FieldError{Field: "message", Err: fmt.Errorf("want \"label: value\", got %q", cut(s, 40))}
		}
		label := s[:j]
		v, n, err := readPyPrefix(s[j+2:])
		if err != nil {
			return nil, &FieldError{Field: label, Err: err}
		}
		out[label] = Value{v: v, ok: v != nil, path: label}
		s = s[j+2+n:]
		switch {
		case strings.HasPrefix(s, ", "):
			s = s[2:]
		case s == "" || s == ".":
			s = ""
		default:
			return nil, &FieldError{Field: label, Err: fmt.Errorf("unexpected %q after the value", cut(s, 40))}
		}
	}
	return out, nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// vllmReceived reads a received line: its params, LoRA adapter, and prompt count where the
// release logs it there.
func vllmReceived(e *Entry, vals map[string]Value) error {
	st := &vllmState{}
	e.vllm = st
	switch {
	case strings.HasPrefix(e.ID, "chatcmpl-"):
		e.API = trace.APIChat
	case strings.HasPrefix(e.ID, "embd-"):
		e.API = trace.APIEmbeddings
	case strings.HasPrefix(e.ID, "resp_"), strings.HasPrefix(e.ID, "resp-"):
		e.API = trace.APIResponses
	}
	params, ok := vals["params"]
	if !ok {
		params = vals["sampling_params"]
	}
	if err := vllmParams(e, params); err != nil {
		return err
	}
	if name, ok := vals["lora_request"].Get("lora_name").String(); ok {
		e.Model = name
	}
	return vllmPrompt(e, vals)
}

// vllmPrompt reads the prompt's count: the token id list's length, else prompt_embeds'
// first dimension ("torch.Size([n, hidden])").
func vllmPrompt(e *Entry, vals map[string]Value) error {
	if e.vllm == nil {
		e.vllm = &vllmState{}
	}
	ids := vals["prompt_token_ids"]
	if ids.Exists() {
		if _, ok := ids.v.([]any); !ok {
			return ids.Err("want a list of token ids, got %s", describe(ids.v))
		}
		e.PromptTokens, e.vllm.promptKnown = ids.Len(), true
		return nil
	}
	shape := vals["prompt_embeds shape"]
	if dims := shape.Get(pyArgs).Index(0); shape.Exists() {
		n, ok, err := dims.Index(0).Int()
		if err != nil || !ok {
			return shape.Err("want torch.Size([tokens, hidden]), got %s", describe(shape.v))
		}
		e.PromptTokens, e.vllm.promptKnown = n, true
	}
	return nil
}

// vllmParams reads SamplingParams (cap, temperature, top_p, n, seed, stop), BeamSearchParams
// (cap, temperature, beam width as n) or PoolingParams (an embeddings request).
func vllmParams(e *Entry, p Value) error {
	if !p.Exists() {
		return nil // a release or request that logs no params
	}
	name, _ := p.Get(pyCallName).String()
	switch name {
	case "SamplingParams", "BeamSearchParams":
	case "PoolingParams":
		e.API = trace.APIEmbeddings
		return nil
	default:
		return p.Err("want SamplingParams(...), got %s", describe(p.v))
	}
	if err := samplingFrom(e, p, "max_tokens", "temperature", "top_p"); err != nil {
		return err
	}
	for _, f := range []*float64{e.Temperature, e.TopP} {
		if f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) {
			return p.Err("temperature or top_p %v: not finite", *f)
		}
	}
	nKey := "n"
	if name == "BeamSearchParams" {
		nKey = "beam_width"
	}
	n, ok, err := p.Get(nKey).Int()
	if err != nil {
		return err
	}
	if ok {
		e.N = n
	}
	if s := p.Get("seed"); s.Exists() {
		num, ok := s.v.(json.Number)
		seed, perr := strconv.ParseInt(string(num), 10, 64)
		if !ok || perr != nil {
			return s.Err("want an integer seed, got %s", describe(s.v))
		}
		e.Seed = &seed
	}
	switch stop := p.Get("stop"); x := stop.v.(type) {
	case string:
		e.Stop = []string{x}
	case []any:
		for i := range x {
			s, ok := stop.Index(i).String()
			if !ok {
				return stop.Index(i).Err("want a stop string, got %s", describe(x[i]))
			}
			e.Stop = append(e.Stop, s)
		}
	}
	return nil
}

// vllmGenerated reads a generated-response line: its output ids' count, stream, finish.
func vllmGenerated(e *Entry, vals map[string]Value, streaming, delta bool) error {
	st := &vllmState{}
	e.vllm = st
	e.Stream = &streaming
	ids := vals["output_token_ids"]
	if ids.Exists() {
		if _, ok := ids.v.([]any); !ok {
			return ids.Err("want a list of token ids, got %s", describe(ids.v))
		}
		if delta {
			st.delta, st.deltaSeen = ids.Len(), true
		} else {
			st.whole, st.wholeSeen = ids.Len(), true
		}
	}
	if f, ok := vals["finish_reason"].v.(pyOpaque); ok {
		e.FinishReason = string(f)
	} else if s, ok := vals["finish_reason"].String(); ok {
		e.FinishReason = s
	}
	if !vals["output"].Exists() && !ids.Exists() {
		return &FieldError{Field: "output", Err: fmt.Errorf("missing")}
	}
	return nil
}

// mergeVLLM folds a details line's prompt count, or a generated line's output, into the
// request's received line.
func mergeVLLM(into *Entry, part Entry) {
	if into.vllm == nil {
		into.vllm = &vllmState{}
	}
	p := part.vllm
	if p == nil {
		return
	}
	if part.Part == Leads {
		if p.promptKnown && !into.vllm.promptKnown {
			into.PromptTokens, into.vllm.promptKnown = part.PromptTokens, true
		}
		return
	}
	st := into.vllm
	st.whole += p.whole
	st.delta += p.delta
	st.wholeSeen = st.wholeSeen || p.wholeSeen
	st.deltaSeen = st.deltaSeen || p.deltaSeen
	if part.Stream != nil && (into.Stream == nil || *part.Stream) {
		into.Stream = part.Stream
	}
	if into.FinishReason == "" {
		into.FinishReason = part.FinishReason
	}
}

// finishVLLM settles a request's counts once its lines are in: its prompt must be known; its
// output is the whole lines' ids, else the deltas', else unknown.
func finishVLLM(e *Entry) error {
	st := e.vllm
	if st == nil {
		st = &vllmState{}
	}
	if !st.promptKnown {
		return &FieldError{Field: "prompt_token_ids", Err: fmt.Errorf("not logged for request %q: this vLLM release logs a request's prompt token ids only at DEBUG (VLLM_LOGGING_LEVEL=DEBUG), so its prompt length is unknown", e.ID)}
	}
	switch {
	case e.API == trace.APIEmbeddings:
		e.OutputTokens = 0 // a pooling request generates nothing: no count is missing
	case st.wholeSeen:
		e.OutputTokens = st.whole
	case st.deltaSeen:
		e.OutputTokens = st.delta
	default:
		e.OutputTokens, e.OutputUnknown = 0, true
	}
	if e.FinishReason == "None" {
		e.FinishReason = ""
	}
	e.vllm = nil
	return nil
}
