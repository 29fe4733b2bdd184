package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// TestResolveOptions: logged is the default exactly when a record carries options; --body
// verbatim needs every record's body and logged options; a wrong word is an error.
func TestResolveOptions(t *testing.T) {
	plain := []trace.Record{{Source: "t", Line: 1}}
	opts := []trace.Record{{Source: "t", Line: 1}, {Options: &trace.Options{N: 2}, Source: "t", Line: 2}}
	bodies := []trace.Record{{Options: &trace.Options{Body: json.RawMessage(`{}`)}}}
	for _, tc := range []struct {
		name    string
		cfg     Config
		recs    []trace.Record
		logged  bool
		errWant string
	}{
		{"no options: none", Config{}, plain, false, ""},
		{"options: logged", Config{}, opts, true, ""},
		{"asked none", Config{Options: OptionsNone}, opts, false, ""},
		{"asked logged", Config{Options: OptionsLogged}, plain, true, ""},
		{"bad word", Config{Options: "all"}, opts, false, `--options "all"`},
		{"verbatim", Config{Body: BodyVerbatim}, bodies, true, ""},
		{"verbatim without bodies", Config{Body: BodyVerbatim}, opts, false, "t:1: --body verbatim"},
		{"verbatim and none", Config{Body: BodyVerbatim, Options: OptionsNone}, bodies, false, "cannot go with"},
		{"bad body", Config{Body: "raw"}, bodies, false, `--body "raw"`},
	} {
		logged, err := resolveOptions(tc.cfg, tc.recs)
		if tc.errWant != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errWant) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.errWant)
			}
			continue
		}
		if err != nil || logged != tc.logged {
			t.Errorf("%s: logged %v err %v, want %v", tc.name, logged, err, tc.logged)
		}
	}
}

// TestSentAs: how a request is sent and what its row says: forcing only where the log ran
// to its length unconstrained, n choices sharing the logged output, the population.
func TestSentAs(t *testing.T) {
	no := false
	for _, tc := range []struct {
		name       string
		o          *trace.Options
		logged     bool
		unforced   bool
		maxTokens  int
		target     int32
		population string
	}{
		{"no options", nil, true, false, 10, 10, "stream/plain"},
		{"ran to length", &trace.Options{FinishReason: "length"}, true, false, 10, 10, "stream/plain"},
		{"stopped", &trace.Options{FinishReason: "stop"}, true, true, 10, 10, "stream/plain"},
		{"tools", &trace.Options{FinishReason: "length", Tools: json.RawMessage(`[{}]`)}, true, true, 10, 10, "stream/tools"},
		{"json, not streamed", &trace.Options{FinishReason: "length", Stream: &no, ResponseFormat: json.RawMessage(`{"type":"json_object"}`)}, true, true, 10, 10, "nostream/json"},
		{"text format is plain", &trace.Options{FinishReason: "length", ResponseFormat: json.RawMessage(`{"type":"text"}`)}, true, false, 10, 10, "stream/plain"},
		{"n choices", &trace.Options{FinishReason: "length", N: 3}, true, false, 4, 12, "stream/plain"},
		{"options none", &trace.Options{FinishReason: "stop", Stream: &no, N: 3}, false, false, 10, 10, "stream/plain"},
	} {
		s := &sender{logged: tc.logged}
		r := &synth.Request{Record: trace.Record{Options: tc.o}, MaxTokens: 10}
		req := s.request(r)
		row := results.Row{TargetOutputTokens: 10}
		s.sentAs(&row, r)
		if req.Unforced != tc.unforced || req.MaxTokens != tc.maxTokens || (req.Options != nil) != (tc.logged && tc.o != nil) {
			t.Errorf("%s: request unforced %v max %d options %v", tc.name, req.Unforced, req.MaxTokens, req.Options)
		}
		if row.Unforced != tc.unforced || row.TargetOutputTokens != tc.target || row.Population != tc.population {
			t.Errorf("%s: row unforced %v target %d population %q", tc.name, row.Unforced, row.TargetOutputTokens, row.Population)
		}
	}
}

// Under --body verbatim the request is the logged body for the logged API, nothing else.
func TestSenderRequestVerbatim(t *testing.T) {
	s := &sender{logged: true, verbatim: true}
	body := json.RawMessage(`{"model":"x","prompt":"p"}`)
	r := &synth.Request{Record: trace.Record{Options: &trace.Options{API: "completions", Body: body}}, Prompt: "synth", MaxTokens: 5}
	req := s.request(r)
	if string(req.Body) != string(body) || req.API != "completions" || req.Prompt != "" || req.Options != nil {
		t.Fatalf("request %+v", req)
	}
}
