package checks

import (
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// TestJudgeStream: one burst at the end fails; incremental arrivals pass, as do a few reads
// spread over the answer, a burst that is most of a slow answer's span, and an answer too fast
// for buffering to matter.
func TestJudgeStream(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	spread := func(from, to float64, n int) []time.Duration {
		var out []time.Duration
		for i := range n {
			out = append(out, ms(from+(to-from)*float64(i)/float64(max(1, n-1))))
		}
		return out
	}
	cases := []struct {
		name     string
		arrivals []time.Duration
		e2e      time.Duration
		ok       bool
		seen     string
	}{
		{"one burst at the end", spread(400, 400.2, 32), ms(401), false, "32 content chunks in 1 read"},
		{"one chunk at the end", []time.Duration{ms(300)}, ms(300), false, "1 content chunk in 1 read"},
		{"two bursts at the end", append(spread(390, 390.1, 16), spread(395, 395.1, 16)...), ms(400), false, "in 2 reads"},
		{"a token a step", spread(20, 400, 32), ms(401), true, "32 content chunks in 32 reads"},
		{"three reads, close together", append(append(spread(390, 390, 10), ms(392)), ms(394)), ms(400), true, "in 3 reads"},
		{"two reads, far apart", append(spread(10, 10, 16), spread(300, 300, 16)...), ms(310), true, "in 2 reads"},
		{"zero-cost speed", spread(0.3, 0.4, 32), ms(0.5), true, "too fast for buffering"},
	}
	for _, tc := range cases {
		ok, seen := judgeStream(tc.arrivals, tc.e2e)
		if ok != tc.ok || !strings.Contains(seen, tc.seen) {
			t.Errorf("%s: %v, %q; want %v, saying %q", tc.name, ok, seen, tc.ok, tc.seen)
		}
	}
}

// TestOverload: every 429 and 503 with Retry-After passes; each without it fails, counted by
// status; a run with neither is skipped; the statuses' distribution is what was seen.
func TestOverload(t *testing.T) {
	s := int64(time.Second)
	cases := []struct {
		name       string
		answers    []Answer
		pass, fail int
		verdict    string
		seen       string
		examples   []string
	}{
		{"all carry it", []Answer{{200, 0}, {429, s}, {503, 2 * s}, {200, 0}}, 2, 0, VerdictPass, "statuses: 200×2, 429×1, 503×1 of 4", nil},
		{"429 without", []Answer{{429, s}, {429, 0}, {429, 0}, {500, 0}, {0, 0}}, 1, 2, VerdictFail, "statuses: none×1, 429×3, 500×1 of 5",
			[]string{"429 without Retry-After (2 of 3)"}},
		{"503 without", []Answer{{503, 0}, {200, 0}}, 0, 1, VerdictFail, "503×1", []string{"503 without Retry-After (1 of 1)"}},
		{"never overloaded", []Answer{{200, 0}, {400, 0}}, 0, 0, VerdictSkipped, "statuses: 200×1, 400×1 of 2", nil},
		{"no answers", nil, 0, 0, VerdictSkipped, "no answers", nil},
	}
	for _, tc := range cases {
		r := Overload(tc.answers)
		if r.Pass != tc.pass || r.Fail != tc.fail || r.Verdict() != tc.verdict || !strings.Contains(r.Seen, tc.seen) || strings.Join(r.Examples, "|") != strings.Join(tc.examples, "|") {
			t.Errorf("%s: %+v (%s)", tc.name, r, r.Verdict())
		}
	}
}

// TestJudgeCall: no call, a call of another function, arguments that are not JSON and arguments
// that break the parameters each fail, saying which.
func TestJudgeCall(t *testing.T) {
	cases := []struct {
		calls []toolCall
		want  string
	}{
		{nil, "no tool call"},
		{[]toolCall{{"lookup", `{}`}}, `no call of get_weather, only of "lookup"`},
		{[]toolCall{{toolName, `{"city":`}}, "not JSON"},
		{[]toolCall{{toolName, `{"city":"","unit":"celsius","days":1}`}}, "does not fit the schema"},
		{[]toolCall{{toolName, `{"city":"Oslo","unit":"celsius","days":9}`}}, "maximum"},
		{[]toolCall{{"other", `{}`}, {toolName, `{"city":"Oslo","unit":"celsius","days":2}`}}, ""},
	}
	for _, tc := range cases {
		err := judgeCall(tc.calls)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: %v, want %q", tc.calls, err, tc.want)
		}
	}
}

// TestJudgeCap: usage over max_tokens fails, and so does content too long for it when the
// server gave no usage or under-reported it.
func TestJudgeCap(t *testing.T) {
	u := func(n int) *openai.Usage { return &openai.Usage{CompletionTokens: n} }
	cases := []struct {
		r    reply
		want string
	}{
		{reply{content: "1 2 3 4", usage: u(8)}, ""},
		{reply{content: "1 2 3 4"}, ""},
		{reply{content: "1 2 3 4 5 6 7 8 9", usage: u(9)}, "usage says 9 completion tokens"},
		{reply{content: strings.Repeat("1 ", 100), usage: u(8)}, "200 bytes of content"},
	}
	for _, tc := range cases {
		if got := judgeCap(tc.r); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.r, got, tc.want)
		}
	}
}

// TestSchemasCompile: the probes' own schemas compile, and hold the instances they are meant
// to accept.
func TestSchemasCompile(t *testing.T) {
	for _, tc := range []struct {
		s    schema
		good string
	}{
		{toolParams, `{"city":"Lisbon","unit":"fahrenheit","days":7}`},
		{personSchema, `{"name":"Ada","age":36,"languages":[]}`},
	} {
		if err := tc.s.validate(tc.good); err != nil {
			t.Errorf("%s: %v", tc.good, err)
		}
		if err := tc.s.validate(tc.good + " x"); err == nil {
			t.Errorf("%s with trailing bytes: accepted", tc.good)
		}
	}
	if _, err := compile("bad", `{"type":"object","properties":{"a":{"$ref":"https://example.com/x.json"}}}`); err == nil {
		t.Error("a schema with a remote $ref compiled: validation must never fetch")
	}
}
