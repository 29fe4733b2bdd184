package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// mixedLog is a hand-written gateway log mixing the five APIs, each body in the shape of its
// API's published reference (requestlog/testdata/mixed-apis/README.md cites them): nothing
// of replay wrote it.
const mixedLog = "../requestlog/testdata/mixed-apis.jsonl"

// TestMixedLogAsLogged replays the mixed log in one run (its text kept, so tools and schemas
// are the logged ones byte for byte) against a loopback server that records every request and
// counts its prompt as the model's server would: the chat family (chat, responses, messages)
// through the model's chat template with the tools the body offers, completions and
// embeddings encoded with the tokenizer's specials; the simulator answers. Every request must
// go to its logged path with every logged option as logged, field by field (content is the
// replay's own synthetic text of the same length; the output cap is the logged output length,
// or the logged cap for a cancelled request), and the server's count of every prompt must be
// the reader's count of the logged one, under Qwen3's and Llama 3's templates.
func TestMixedLogAsLogged(t *testing.T) {
	for _, name := range []string{"qwen3", "llama3_1"} {
		t.Run(name, func(t *testing.T) { testMixedLog(t, name) })
	}
}

func testMixedLog(t *testing.T, name string) {
	tokPath := testenv.Tokenizer(t, name)
	tok, tpl, err := requestlog.LoadModel(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	tracePath := filepath.Join(t.TempDir(), "mixed.parquet")
	if _, err := requestlog.Convert(context.Background(), requestlog.ConvertOptions{Log: mixedLog, Tokenizer: tokPath, KeepText: true, Out: tracePath}); err != nil {
		t.Fatal(err)
	}
	recs, err := trace.ReadAll(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	byShape := map[int]string{} // a line without a path is of the API its body's shape says (requestlog's tests hold the reader to each line's)
	for _, r := range recs {
		byShape[int(r.Line)] = r.Options.API
	}
	logged := readLoggedLines(t, mixedLog, byShape)
	sc := sim.DefaultConfig()
	sc.ZeroCost = true
	srv := sim.New(sc)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := &apiRecorder{next: srv, tok: tok, tpl: tpl, got: map[string]recorded{}}
	hs := httptest.NewServer(rec)
	defer hs.Close()
	cfg := Config{Trace: tracePath, Out: t.TempDir(), Client: client.Config{BaseURL: hs.URL + "/v1", Model: sc.ModelName}, Tokenizer: tokPath,
		Options: OptionsLogged, MetricsURL: "none", MaxLateness: -1, MinExact: anyLengths, Checks: "none", Stderr: io.Discard, Stdout: io.Discard}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Error(err)
	}
	if sum == nil {
		t.FailNow()
	}
	rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	apis := map[string]int{}
	asLogged, counted := 0, 0
	for _, r := range rows {
		l, ok := logged[int(r.Line)]
		if !ok {
			t.Fatalf("row %s: line %d is not in the log", r.RequestID, r.Line)
		}
		got := rec.take(r.RequestID)
		apis[l.api]++
		if r.ErrorClass != "" {
			t.Errorf("line %d (%s): %s: %s", r.Line, l.api, r.ErrorClass, r.ErrorMessage)
		}
		if problems := l.compare(got, r); len(problems) > 0 {
			t.Errorf("line %d (%s): %s", r.Line, l.api, strings.Join(problems, "; "))
		} else {
			asLogged++
		}
		if got.err != nil || got.prompt != int(r.TargetPromptTokens) {
			t.Errorf("line %d (%s): the server counts %d prompt tokens (%v), the log's prompt %d", r.Line, l.api, got.prompt, got.err, r.TargetPromptTokens)
		} else {
			counted++
		}
	}
	t.Logf("%s: %d of %d requests sent as logged, %d of %d prompts counted as logged; by API %v; summary apis %d", name, asLogged, len(rows), counted, len(rows), apis, len(sum.APIs))
	if len(rows) != len(logged) || len(apis) != len(trace.APIs) {
		t.Fatalf("%d rows of %d logged lines, APIs %v", len(rows), len(logged), apis)
	}
	for a, n := range apis {
		if p := sum.APIs[a]; p.Requests != int64(n) || p.Failed != 0 {
			t.Errorf("summary's %s: %+v, want %d requests, none failed", a, p, n)
		}
	}
}

// loggedLine is one line of the log as it was written: its API and its request body.
type loggedLine struct {
	api       string
	path      string
	body      map[string]json.RawMessage
	cancelled bool
}

// readLoggedLines reads the log's lines by number, each body's API from its path, else from
// byShape.
func readLoggedLines(t *testing.T, path string, byShape map[int]string) map[int]loggedLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int]loggedLine{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var l struct {
			Path      string                     `json:"path"`
			Request   map[string]json.RawMessage `json:"request"`
			Status    int                        `json:"status"`
			Cancelled bool                       `json:"cancelled"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		api := apiOfPath(l.Path)
		if l.Path == "" {
			api = byShape[n]
		}
		if api == "" {
			t.Fatalf("%s:%d: path %q names no API", path, n, l.Path)
		}
		out[n] = loggedLine{api: api, path: l.Path, body: l.Request, cancelled: l.Cancelled || l.Status == 499}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// apiOfPath is the API a request path is of (OpenAI's and Anthropic's API references).
func apiOfPath(p string) string {
	if u, err := url.Parse(p); err == nil {
		p = u.Path
	}
	for _, s := range []struct{ suffix, api string }{{"/chat/completions", trace.APIChat}, {"/completions", trace.APICompletions},
		{"/responses", trace.APIResponses}, {"/messages", trace.APIMessages}, {"/embeddings", trace.APIEmbeddings}} {
		if strings.HasSuffix(p, s.suffix) {
			return s.api
		}
	}
	return ""
}

// contentMembers are each API's members that hold the prompt: the replay sends its own text
// of the same length there (and a previous_response_id chain as the whole conversation).
var contentMembers = map[string][]string{
	trace.APIChat:        {"messages"},
	trace.APICompletions: {"prompt"},
	trace.APIResponses:   {"input", "instructions", "previous_response_id"},
	trace.APIMessages:    {"messages", "system"},
	trace.APIEmbeddings:  {"input"},
}

// capMembers are the output caps' names.
var capMembers = []string{"max_tokens", "max_completion_tokens", "max_output_tokens"}

// compare lists how the sent request differs from the logged one.
func (l loggedLine) compare(got recorded, r results.Row) []string {
	var bad []string
	if apiOfPath(got.path) != l.api || r.API != l.api {
		bad = append(bad, fmt.Sprintf("sent to %s (row's API %q)", got.path, r.API))
	}
	sent := got.body
	for k, v := range l.body {
		switch {
		case k == "model" || slices.Contains(contentMembers[l.api], k) || slices.Contains(capMembers, k) || k == "stream_options":
			continue
		case sent[k] == nil:
			bad = append(bad, fmt.Sprintf("%s not sent", k))
		case !jsonEqual(v, sent[k]):
			bad = append(bad, fmt.Sprintf("%s sent as %s, logged %s", k, sent[k], v))
		}
	}
	for k, v := range sent {
		switch {
		case l.body[k] != nil || k == "model" || slices.Contains(contentMembers[l.api], k) || slices.Contains(client.ForcingKeys, k):
		case k == "stream" && string(v) == "false":
		case k == "stream_options" && string(v) == `{"include_usage":true}` && string(sent["stream"]) == "true":
		case slices.Contains(capMembers, k) && !l.cancelled && l.api != trace.APIEmbeddings:
		default:
			bad = append(bad, fmt.Sprintf("%s sent (%s) but not logged", k, v))
		}
	}
	return append(bad, l.compareCap(sent, r)...)
}

// compareCap checks the output cap: the logged one's name, with the logged output length as
// its value, or for a cancelled request the logged cap itself (none when it had none).
func (l loggedLine) compareCap(sent map[string]json.RawMessage, r results.Row) []string {
	var bad []string
	for _, k := range capMembers {
		lv, sv := l.body[k], sent[k]
		switch {
		case lv == nil:
			if sv != nil && (l.cancelled || l.api == trace.APIEmbeddings) {
				bad = append(bad, fmt.Sprintf("%s %s sent, the log had none", k, sv))
			}
		case sv == nil:
			bad = append(bad, fmt.Sprintf("%s not sent (logged %s)", k, lv))
		case l.cancelled && !jsonEqual(lv, sv):
			bad = append(bad, fmt.Sprintf("cancelled, sent %s %s, logged %s", k, sv, lv))
		}
	}
	return bad
}

// jsonEqual compares two JSON values as values (numbers as written, objects unordered).
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}

// recorded is one request as the server received it, with its prompt as the server counts it.
type recorded struct {
	path   string
	body   map[string]json.RawMessage
	prompt int
	err    error
}

// apiRecorder records each request by its X-Request-Id and counts its prompt, then hands it
// to next to be answered.
type apiRecorder struct {
	next http.Handler
	tok  tokenizer.Tokenizer
	tpl  *chat.Renderer
	mu   sync.Mutex
	got  map[string]recorded
}

func (a *apiRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rec := recorded{path: r.URL.Path}
	if err := json.Unmarshal(raw, &rec.body); err != nil {
		rec.err = err
	} else {
		rec.prompt, rec.err = a.count(apiOfPath(r.URL.Path), rec.body)
	}
	a.mu.Lock()
	a.got[r.Header.Get("X-Request-Id")] = rec
	a.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(raw))
	a.next.ServeHTTP(w, r)
}

func (a *apiRecorder) take(id string) recorded {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.got[id]
}

// count is the prompt tokens a server of api counts for body: the chat family rendered
// through the chat template (Responses' instructions and Anthropic's system as the leading
// system message, their tools in chat's shape, as llama.cpp's server converts them),
// completions and embeddings inputs encoded with the tokenizer's specials.
func (a *apiRecorder) count(api string, body map[string]json.RawMessage) (int, error) {
	switch api {
	case trace.APICompletions:
		return a.countText(body["prompt"])
	case trace.APIEmbeddings:
		return a.countText(body["input"])
	}
	msgs, tools, err := conversation(api, body)
	if err != nil {
		return 0, err
	}
	text, err := a.tpl.RenderTools(msgs, tools)
	if err != nil {
		return 0, err
	}
	return len(a.tok.Encode(text, false)), nil
}

// countText counts a text, a list of texts, token ids or lists of them, each with specials.
func (a *apiRecorder) countText(v json.RawMessage) (int, error) {
	var one string
	if json.Unmarshal(v, &one) == nil {
		return len(a.tok.Encode(one, true)), nil
	}
	var ids []int
	if json.Unmarshal(v, &ids) == nil {
		return len(ids), nil
	}
	var texts []string
	if json.Unmarshal(v, &texts) == nil {
		n := 0
		for _, s := range texts {
			n += len(a.tok.Encode(s, true))
		}
		return n, nil
	}
	var idLists [][]int
	if err := json.Unmarshal(v, &idLists); err != nil {
		return 0, fmt.Errorf("input %s: %w", v, err)
	}
	n := 0
	for _, l := range idLists {
		n += len(l)
	}
	return n, nil
}

// conversation is a chat-family body's messages and chat-shaped tools.
func conversation(api string, body map[string]json.RawMessage) ([]chat.Message, json.RawMessage, error) {
	var msgs []chat.Message
	lead := "system"
	switch api {
	case trace.APIResponses:
		lead = "instructions"
	case trace.APIChat:
		lead = ""
	}
	if lead != "" && body[lead] != nil {
		s, err := blockText(body[lead])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", lead, err)
		}
		msgs = append(msgs, chat.Message{Role: "system", Content: s})
	}
	items := body["messages"]
	if api == trace.APIResponses {
		items = body["input"]
		var s string
		if json.Unmarshal(items, &s) == nil {
			return append(msgs, chat.Message{Role: "user", Content: s}), nil, nil
		}
	}
	var list []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(items, &list); err != nil {
		return nil, nil, err
	}
	for _, m := range list {
		s, err := blockText(m.Content)
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, chat.Message{Role: m.Role, Content: s})
	}
	tools, err := chatTools(api, body["tools"])
	return msgs, tools, err
}

// blockText is a content string, or its text blocks' texts joined.
func blockText(v json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, nil
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(v, &blocks); err != nil {
		return "", err
	}
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n"), nil
}

// chatTools is a body's tools in chat's shape as llama.cpp's server hands them to the
// template (ggml-org/llama.cpp@0083bb18:common/chat.cpp, common_chat_tools_to_json_oaicompat;
// the Responses and Anthropic conversions in tools/server/server-chat.cpp @03eb25f3):
// {"type":"function","function":{name, description ("" when absent), parameters ({} when
// absent; Anthropic's input_schema)}}, a Responses tool of another type than function left
// out.
func chatTools(api string, tools json.RawMessage) (json.RawMessage, error) {
	if len(tools) == 0 || api == trace.APIChat {
		return tools, nil
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(tools, &list); err != nil {
		return nil, err
	}
	params := "parameters"
	if api == trace.APIMessages {
		params = "input_schema"
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for _, t := range list {
		if api == trace.APIResponses && string(t["type"]) != `"function"` {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"function","function":{"name":`)
		b.Write(t["name"])
		b.WriteString(`,"description":`)
		b.Write(cmpRaw(t["description"], `""`))
		b.WriteString(`,"parameters":`)
		b.Write(cmpRaw(t[params], `{}`))
		b.WriteString("}}")
	}
	b.WriteByte(']')
	if b.Len() == 2 {
		return nil, nil
	}
	return b.Bytes(), nil
}

// cmpRaw is v, or def when v is absent.
func cmpRaw(v json.RawMessage, def string) []byte {
	if len(v) == 0 {
		return []byte(def)
	}
	return v
}
