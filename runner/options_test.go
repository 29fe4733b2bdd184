package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

func ptr[T any](v T) *T { return &v }

// testTools are a request's tool definitions as a request log holds them.
var testTools = json.RawMessage(`[{"type":"function","function":{"name":"get_weather","description":"alpha beta gamma","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}}}]`)

// optionKinds are the logged options of the test trace, one per record in turn: every field
// in mixed proportions, the values go-openai's omitempty would drop among them, and records
// with no options at all.
var optionKinds = []func() *trace.Options{
	func() *trace.Options { // sampling at its zero values, ran to its length: forced
		return &trace.Options{API: "chat", Temperature: ptr(0.0), TopP: ptr(1.0), Seed: ptr(int64(0)), FinishReason: "length"}
	},
	func() *trace.Options { // not streamed, n > 1, stop strings, the newer cap field
		return &trace.Options{API: "chat", Stream: ptr(false), N: 3, Stop: []string{"\n\n", "END"}, MaxTokensField: "max_completion_tokens",
			Temperature: ptr(0.7), FinishReason: "length"}
	},
	func() *trace.Options { // tools: rendered into the prompt, never forced
		return &trace.Options{API: "chat", Tools: testTools, ToolChoice: json.RawMessage(`"auto"`), ParallelToolCalls: ptr(false),
			FinishReason: "tool_calls", MaxTokensField: "max_tokens"}
	},
	func() *trace.Options { // structured output, logprobs, penalties; stopped on its own
		return &trace.Options{API: "chat", ResponseFormat: json.RawMessage(`{"type":"json_schema","json_schema":{"name":"r","schema":{"type":"object","properties":{"a":{"type":"integer"}}}}}`),
			Logprobs: ptr(true), TopLogprobs: ptr(3), PresencePenalty: ptr(0.0), FrequencyPenalty: ptr(-0.5), FinishReason: "stop"}
	},
	func() *trace.Options { // its client gave up 25 ms after sending
		return &trace.Options{API: "chat", Status: 499, Cancelled: true, CancelAfterMS: 25, Logprobs: ptr(false), TopLogprobs: ptr(0)}
	},
	func() *trace.Options { return nil },
	func() *trace.Options { // streamed n > 1, seed, non-streamed tools
		return &trace.Options{API: "chat", N: 2, Seed: ptr(int64(7)), FinishReason: "length"}
	},
	func() *trace.Options {
		return &trace.Options{API: "chat", Stream: ptr(false), Tools: testTools, FinishReason: "tool_calls", IncludeUsage: ptr(false)}
	},
}

// optionTrace writes a normalized trace of n records carrying optionKinds in turn.
func optionTrace(t *testing.T, n int) (string, []trace.Record) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "options.parquet")
	w, err := trace.CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]trace.Record, n)
	for i := range recs {
		recs[i] = trace.Record{Timestamp: time.Duration(i) * 7 * time.Millisecond, PromptTokens: 300 + 41*i, OutputTokens: 12,
			Options: optionKinds[i%len(optionKinds)](), Source: "log.jsonl", Line: int64(100 + i)}
		if err := w.Write(recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, recs
}

// optionTemplates are the chat templates the send-side options tests run under, both
// fetched (scripts/fetch-tokenizers.sh): Qwen3's, and Llama-3.1-8B-Instruct's own
// (llama3_1_tools), which renders the tools into the first user message under "Environment:
// ipython". The server counts each prompt with the same template and tokenizer.
var optionTemplates = []string{"qwen3", "llama3_1_tools"}

// newOptionServer is a recording server that counts prompts with the fetched tokenizer
// name and its chat template.
func newOptionServer(t *testing.T, name string, gap time.Duration) (*optionServer, string) {
	t.Helper()
	tokPath := testenv.Tokenizer(t, name)
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := chat.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	return &optionServer{tok: tok, tpl: tpl, gap: gap, bodies: map[string][]byte{}}, tokPath
}

// optionRun replays the trace at path with --options mode against a recording server that
// counts with the fetched tokenizer name.
func optionRun(t *testing.T, name, path, mode string) (*optionServer, []results.Row, *analysis.Summary) {
	t.Helper()
	srv, tokPath := newOptionServer(t, name, 5*time.Millisecond)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	cfg := Config{Trace: path, Out: t.TempDir(), Client: client.Config{BaseURL: hs.URL + "/v1", Model: "m", API: "chat", ExtraBody: map[string]any{"ignore_eos": true}}, Tokenizer: tokPath,
		Options: mode, MetricsURL: "none", MaxLateness: -1,
		Stderr: io.Discard, Stdout: io.Discard}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	checkReportPopulations(t, cfg.Out, sum)
	return srv, rows, sum
}

// checkReportPopulations: report.html sets the summary's populations side by side, each
// named once in its populations section.
func checkReportPopulations(t *testing.T, out string, sum *analysis.Summary) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(page, []byte(`id="populations"`))
	if at < 0 {
		t.Fatal("report.html has no populations section")
	}
	section := page[at:]
	if end := bytes.Index(section[1:], []byte("<h2")); end >= 0 {
		section = section[:end+1]
	}
	for name := range sum.Populations {
		if n := bytes.Count(section, []byte(">"+name+"<")); n != 1 {
			t.Errorf("report.html's populations section names %s %d times, want once", name, n)
		}
	}
}

// TestLoggedOptionsReplay replays a trace whose records carry options in mixed proportions:
// the body of every request carries exactly its logged options, field by field (presence and
// value), 100% of requests; its prompt, rendered with the model's template (Qwen3's and
// Llama-3.1's with tool support) including its tools, counts the logged prompt tokens;
// non-streamed answers are measured end to end; n > 1 counts every choice; forcing goes only
// where the log ran to its length; cancellations are replayed; rows carry the source line and
// the population; the summary sets the populations side by side.
func TestLoggedOptionsReplay(t *testing.T) {
	for _, name := range optionTemplates {
		t.Run(name, func(t *testing.T) {
			path, recs := optionTrace(t, 32)
			srv, rows, sum := optionRun(t, name, path, "")
			if len(rows) != len(recs) || sum.Run.Options != OptionsLogged {
				t.Fatalf("%d rows of %d records, options %q", len(rows), len(recs), sum.Run.Options)
			}
			for _, row := range rows {
				i := id(t, row)
				rec := recs[i]
				checkBody(t, i, srv.body(row.RequestID), rec.Options, rec.OutputTokens)
				checkRow(t, row, rec)
			}
			checkPopulations(t, sum, recs)
		})
	}
}

// checkBody compares one sent body with its record's logged options, field by field.
func checkBody(t *testing.T, i int, body []byte, o *trace.Options, output int) {
	t.Helper()
	var got map[string]json.RawMessage
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("request %d: body %s: %v", i, body, err)
	}
	want := wantFields(o, output)
	for _, k := range append(bodyOptionKeys, "stream", "max_tokens", "ignore_eos") {
		g, present := got[k]
		w, wanted := want[k]
		if present != wanted || (wanted && !sameJSON(g, w)) {
			t.Errorf("request %d: %s sent %v as %s, logged %v as %s (options %+v)", i, k, present, g, wanted, w, o)
		}
	}
	if _, ok := got["stream_options"]; ok != o.Streamed() {
		t.Errorf("request %d: stream_options %v with stream %v", i, ok, o.Streamed())
	}
}

// bodyOptionKeys are the body fields a logged request's options may set.
var bodyOptionKeys = []string{"temperature", "top_p", "n", "seed", "stop", "presence_penalty", "frequency_penalty",
	"logprobs", "top_logprobs", "max_completion_tokens", "tools", "tool_choice", "parallel_tool_calls", "response_format"}

// wantFields are the body fields, as JSON, that the logged options o make the replay send.
func wantFields(o *trace.Options, output int) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	put := func(k string, v any) {
		b, _ := json.Marshal(v)
		m[k] = b
	}
	capField := "max_tokens"
	if o != nil && o.MaxTokensField == "max_completion_tokens" {
		capField = o.MaxTokensField
	}
	if c := o.CapPerChoice(max(1, output)); c > 0 { // synth asks for at least 1; a cancellation, for its logged cap
		put(capField, c)
	}
	put("stream", o.Streamed())
	if o.Forced() {
		put("ignore_eos", true)
	}
	if o == nil {
		return m
	}
	for k, v := range map[string]*float64{"temperature": o.Temperature, "top_p": o.TopP, "presence_penalty": o.PresencePenalty, "frequency_penalty": o.FrequencyPenalty} {
		if v != nil {
			put(k, *v)
		}
	}
	for k, v := range map[string]json.RawMessage{"tools": o.Tools, "tool_choice": o.ToolChoice, "response_format": o.ResponseFormat} {
		if len(v) > 0 {
			m[k] = v
		}
	}
	if o.N > 0 {
		put("n", o.N)
	}
	if o.Seed != nil {
		put("seed", *o.Seed)
	}
	switch {
	case o.StopString && len(o.Stop) == 1:
		put("stop", o.Stop[0]) // logged as one string: sent so
	case len(o.Stop) > 0:
		put("stop", o.Stop)
	}
	if o.Logprobs != nil {
		put("logprobs", *o.Logprobs)
	}
	if o.TopLogprobs != nil {
		put("top_logprobs", *o.TopLogprobs)
	}
	if o.ParallelToolCalls != nil {
		put("parallel_tool_calls", *o.ParallelToolCalls)
	}
	return m
}

// sameJSON reports whether a and b are the same JSON value; raw objects and arrays (tools,
// schemas) must be the same bytes, since their key order is what a template renders.
func sameJSON(a, b json.RawMessage) bool {
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') && !bytes.HasPrefix(b, []byte(`["`)) {
		return bytes.Equal(a, b)
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// checkRow checks one row against its record: the source line, the population, prompt
// tokens exact, e2e-only measurement when not streamed, the output of every choice, and a
// cancellation at the logged time.
func checkRow(t *testing.T, row results.Row, rec trace.Record) {
	t.Helper()
	o := rec.Options
	if row.Line != rec.Line || row.Population != sentPopulation(o, true) || row.Unforced == o.Forced() {
		t.Errorf("row %s: line %d population %q unforced %v; record line %d options %+v", row.RequestID, row.Line, row.Population, row.Unforced, rec.Line, o)
	}
	if d := o.CancelAfter(); d > 0 {
		took := time.Duration(row.DoneNS - row.SentNS)
		// ±5 ms is TestCancelledAsLogged's to hold, on a light run; this one sends every
		// option at once beside other test binaries, so only the cancellation is judged here.
		if !row.CancelledAsLogged || row.ErrorClass != "" || took < d-5*time.Millisecond || took > d+50*time.Millisecond {
			t.Errorf("row %s: cancelled %v class %q after %v, logged %v", row.RequestID, row.CancelledAsLogged, row.ErrorClass, took, d)
		}
		return
	}
	if row.ErrorClass != "" || row.CancelledAsLogged {
		t.Fatalf("row %s: %s %s", row.RequestID, row.ErrorClass, row.ErrorMessage)
	}
	if row.PromptTokens != int32(rec.PromptTokens) || row.TargetPromptTokens != int32(rec.PromptTokens) {
		t.Errorf("row %s: the server counted %d prompt tokens, logged %d (tools %v)", row.RequestID, row.PromptTokens, rec.PromptTokens, o != nil && len(o.Tools) > 0)
	}
	if want := int32(o.CapPerChoice(max(1, rec.OutputTokens)) * o.Choices()); row.CompletionTokens != want || row.TargetOutputTokens != want {
		t.Errorf("row %s: %d completion tokens, target %d, want %d for %d choices", row.RequestID, row.CompletionTokens, row.TargetOutputTokens, want, o.Choices())
	}
	streamed := o.Streamed()
	if streamed != (len(row.ChunkNS) > 0 && row.FirstTokenNS > 0) || row.DoneNS <= row.SentNS {
		t.Errorf("row %s: streamed %v but %d chunks, first token %d, e2e %d", row.RequestID, streamed, len(row.ChunkNS), row.FirstTokenNS, row.DoneNS-row.SentNS)
	}
}

// checkPopulations checks summary.json's populations against the records' options.
func checkPopulations(t *testing.T, sum *analysis.Summary, recs []trace.Record) {
	t.Helper()
	want := map[string]int64{}
	cancelled := int64(0)
	for _, r := range recs {
		want[sentPopulation(r.Options, true)]++
		if r.Options.CancelAfter() > 0 {
			cancelled++
		}
	}
	if len(sum.Populations) != len(want) || sum.Requests.CancelledAsLogged != cancelled || sum.Requests.Failed != 0 {
		t.Fatalf("populations %v, requests %+v; want %v and %d cancelled", sum.Populations, sum.Requests, want, cancelled)
	}
	for name, n := range want {
		p := sum.Populations[name]
		if p.Requests != n || (p.TTFT == nil) == streamedPopulation(name) {
			t.Errorf("population %s: %+v, want %d requests", name, p, n)
		}
	}
	if f := sum.Fidelity; f.PromptTokensExactPct == nil || *f.PromptTokensExactPct != 100 || f.OutputTokensExactPct == nil || *f.OutputTokensExactPct != 100 || f.Unforced == 0 {
		t.Errorf("fidelity %+v", f)
	}
}

// streamedPopulation reports whether a population name is a streamed one.
func streamedPopulation(name string) bool {
	r := results.Row{Population: name}
	return r.Streamed()
}

// With --options none no logged option is sent, nothing is cancelled and every request is
// streamed plain and forced.
func TestOptionsNone(t *testing.T) {
	path, recs := optionTrace(t, 16)
	srv, rows, sum := optionRun(t, "qwen3", path, OptionsNone)
	if sum.Run.Options != OptionsNone || sum.Requests.CancelledAsLogged != 0 || sum.Requests.OK != int64(len(recs)) {
		t.Fatalf("options %q requests %+v", sum.Run.Options, sum.Requests)
	}
	for _, row := range rows {
		checkBody(t, id(t, row), srv.body(row.RequestID), nil, recs[id(t, row)].OutputTokens)
		if row.Population != "stream/plain" || row.Unforced || row.CancelledAsLogged {
			t.Errorf("row %s: population %q unforced %v cancelled %v", row.RequestID, row.Population, row.Unforced, row.CancelledAsLogged)
		}
	}
	if len(sum.Populations) != 1 {
		t.Fatalf("populations %v", sum.Populations)
	}
}

// Logged cancellations happen at the logged duration after the send (typically within 5 ms),
// against a server that streams slowly; the rows say so and are not errors, and a run of only
// such requests is ok.
func TestCancelledAsLogged(t *testing.T) {
	for _, api := range []string{trace.APICompletions, trace.APIChat} {
		t.Run(api, func(t *testing.T) { testCancelledAsLogged(t, api) })
	}
}

// testCancelledAsLogged replays 12 logged cancellations of one API against a server that
// streams a token every 10 ms, far longer than any of them: each must end at its logged
// time, sent with its logged cap (1024 or 4096 tokens, or none where the log had none: the
// server's default would otherwise end a completions answer at 16 tokens, before its
// cancellation).
func testCancelledAsLogged(t *testing.T, api string) {
	path := filepath.Join(t.TempDir(), "cancel.parquet")
	w, err := trace.CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	after := []float64{20, 45, 80, 130}
	caps := []int{1024, 4096, 0}
	for i := range 12 {
		o := &trace.Options{API: api, Status: 499, Cancelled: true, CancelAfterMS: after[i%len(after)]}
		if c := caps[i%len(caps)]; c > 0 {
			o.MaxTokensField, o.MaxTokens = "max_tokens", c
		}
		if err := w.Write(trace.Record{Timestamp: time.Duration(i) * 10 * time.Millisecond, PromptTokens: 50, OutputTokens: 100, Options: o, Line: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	srv, tokPath := newOptionServer(t, "qwen3", 10*time.Millisecond)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cfg := Config{Trace: path, Out: t.TempDir(), Client: client.Config{BaseURL: hs.URL + "/v1", Model: "m"}, Tokenizer: tokPath,
		MetricsURL: "none", MaxLateness: -1, Stderr: io.Discard, Stdout: io.Discard}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	// None early; none as late as the 25 ms between two logged durations (a cancellation at
	// another request's time fails); typically within 5 ms. The bound on each is loose
	// because a timer on a shared two-core machine under the whole suite can fire a few ms
	// late once; the median cannot be moved by one such.
	var late []float64
	for _, r := range rows {
		i := id(t, r)
		want := time.Duration(after[i%len(after)] * float64(time.Millisecond))
		took := time.Duration(r.DoneNS - r.SentNS)
		if !r.CancelledAsLogged || r.ErrorClass != "" || took < want || took > want+20*time.Millisecond || r.API != api {
			t.Errorf("request %s: cancelled %v (class %q, api %q) after %v, logged %v", r.RequestID, r.CancelledAsLogged, r.ErrorClass, r.API, took, want)
		}
		late = append(late, float64(took-want)/1e6)
		srv.mu.Lock()
		body := srv.bodies[r.RequestID]
		srv.mu.Unlock()
		var sent struct {
			MaxTokens *int `json:"max_tokens"`
		}
		if err := json.Unmarshal(body, &sent); err != nil {
			t.Fatalf("request %s: body %s: %v", r.RequestID, body, err)
		}
		if c := caps[i%len(caps)]; (c == 0) != (sent.MaxTokens == nil) || (c > 0 && *sent.MaxTokens != c) {
			t.Errorf("request %s: logged max_tokens %d (0: absent), sent %s", r.RequestID, c, body)
		}
	}
	sort.Float64s(late)
	if m := late[len(late)/2]; len(late) != 12 || m > 5 {
		t.Errorf("cancellations late by %v ms (sorted), want 12 with the median within 5 ms", late)
	}
	t.Logf("%s: cancellations late by %.2f ms (median), %.2f ms (latest), %.2f ms (earliest)", api, late[len(late)/2], late[len(late)-1], late[0])
	if sum.Requests.CancelledAsLogged != 12 || sum.Requests.Failed != 0 || !analysis.VerdictIs(sum.Verdict, analysis.VerdictOK) {
		t.Fatalf("requests %+v verdict %q", sum.Requests, sum.Verdict)
	}
}

// --body verbatim sends each logged body byte for byte but for its model, streamed or not as
// it says; the summary says the lengths are the engine's.
func TestBodyVerbatim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "verbatim.parquet")
	w, err := trace.CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bodies := []string{
		`{"model":"gpt-x","messages":[{"role":"user","content":"été <b>"}],"max_tokens":3,"temperature":0.0,"stream":true,"stream_options":{"include_usage":true}}`,
		`{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":4,"n":2,"model":"gpt-x"}`,
	}
	for i, b := range bodies {
		o := &trace.Options{API: "chat", Body: json.RawMessage(b), Stream: ptr(i == 0)}
		if err := w.Write(trace.Record{Timestamp: time.Duration(i) * time.Millisecond, PromptTokens: 10, OutputTokens: 3, Options: o, Line: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tokPath := testenv.Tokenizer(t, "qwen3")
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := chat.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	srv := &optionServer{tok: tok, tpl: tpl, gap: time.Millisecond, bodies: map[string][]byte{}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cfg := Config{Trace: path, Out: t.TempDir(), Client: client.Config{BaseURL: hs.URL + "/v1", Model: "served"}, Tokenizer: tokPath, Body: BodyVerbatim,
		MetricsURL: "none", MaxLateness: -1, Stderr: io.Discard, Stdout: io.Discard}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bodies {
		want := bytes.Replace([]byte(b), []byte(`"model":"gpt-x"`), []byte(`"model":"served"`), 1)
		if got := srv.body(strconv.Itoa(i)); !bytes.Equal(got, want) {
			t.Errorf("body %d:\n got %s\nwant %s", i, got, want)
		}
	}
	if sum.Run.Body != BodyVerbatim || sum.Requests.OK != 2 || len(sum.Populations) != 2 {
		t.Fatalf("run %+v requests %+v populations %v", sum.Run, sum.Requests, sum.Populations)
	}
	raw, err := os.ReadFile(filepath.Join(cfg.Out, "summary.json"))
	if err != nil || !bytes.Contains(raw, []byte(`"body": "verbatim"`)) {
		t.Fatalf("summary.json: %v\n%s", err, raw)
	}
}
