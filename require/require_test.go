package require

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
)

// requireRun is a run's summary with one of each figure a requirement reads.
func requireRun() *analysis.Summary {
	prompt, output := 100.0, 97.5
	return &analysis.Summary{
		Requests:   analysis.Requests{Total: 200, OK: 196, Failed: 4},
		TTFT:       analysis.Dist{Count: 196, P50: 120, P90: 300, P95: 412.3, P99: 700, P999: 900, Max: 950, Mean: 150},
		TTFTSched:  analysis.Dist{Count: 196, P95: 430},
		ITL:        analysis.Dist{Count: 5000, P99: 55.5},
		TPOT:       analysis.Dist{}, // no request had two tokens
		E2E:        analysis.Dist{Count: 196, P50: 7912, Max: 20000},
		E2ESched:   analysis.Dist{Count: 196, P50: 8000},
		Lateness:   analysis.Dist{Count: 200, P99: 0.8},
		QueueWait:  analysis.Dist{Count: 200, Mean: 0.25},
		Throughput: analysis.Throughput{DurationS: 60, ReqS: 3.267, OutputTokS: 812.5},
		Fidelity:   analysis.Fidelity{UsageReported: 196, PromptTokensExactPct: &prompt, OutputTokensExactPct: &output},
	}
}

// checkOne parses one requirement and checks it against s (and base for a delta).
func checkOne(t *testing.T, expr string, s, base *analysis.Summary) Outcome {
	t.Helper()
	reqs, err := Parse(expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	if len(reqs) != 1 {
		t.Fatalf("%s: %d requirements", expr, len(reqs))
	}
	outs, ok := CheckAll(reqs, s, base)
	if ok != outs[0].Pass {
		t.Fatalf("%s: CheckAll ok %v, outcome %+v", expr, ok, outs[0])
	}
	return outs[0]
}

type requireCase struct {
	expr   string
	pass   bool
	value  string // as printed; "" to skip
	reason string // a substring of the reason; "" for none
}

func runRequireCases(t *testing.T, s, base *analysis.Summary, cases []requireCase) {
	t.Helper()
	for _, c := range cases {
		o := checkOne(t, c.expr, s, base)
		if o.Pass != c.pass || (c.value != "" && o.Value != c.value) {
			t.Errorf("%s: %+v, want pass %v value %q", c.expr, o, c.pass, c.value)
		}
		if (c.reason == "") != (o.Reason == "") || !strings.Contains(o.Reason, c.reason) {
			t.Errorf("%s: reason %q, want %q", c.expr, o.Reason, c.reason)
		}
	}
}

func TestRequireLatency(t *testing.T) {
	runRequireCases(t, requireRun(), nil, []requireCase{
		{"ttft.p95<=500ms", true, "412.3ms", ""},
		{"ttft.p95<=400ms", false, "412.3ms", ""},
		{"ttft.p95<=500", true, "412.3ms", ""}, // a bare number is ms, as in summary.json
		{"ttft.p95<=412.3", true, "", ""},      // equal meets <=
		{"ttft.p95<412.3", false, "", ""},      // and fails <
		{"ttft.p95==412.3ms", true, "", ""},
		{"ttft.p95<=0.5s", true, "0.412s", ""},
		{"ttft.p95<=412300us", true, "412300us", ""},
		{"ttft.p95<=412300µs", true, "412300us", ""},
		{"ttft.p95<=412300000ns", true, "412300000ns", ""},
		{"TTFT.P95 <= 412299 us", false, "", ""},
		{"ttft.p50>100ms", true, "120ms", ""},
		{"ttft.p90>=300ms", true, "", ""},
		{"ttft.p99<700ms", false, "", ""},
		{"ttft.p999<=1s", true, "0.9s", ""},
		{"ttft.max<1s", true, "", ""},
		{"ttft.mean<=150ms", true, "", ""},
		{"ttft_sched.p95<=429ms", false, "430ms", ""},
		{"itl.p99<=60ms", true, "55.5ms", ""},
		{"e2e.p50<=8s", true, "7.912s", ""},
		{"e2e_sched.p50<=8s", true, "8s", ""}, // 8000 ms is exactly 8 s
		{"e2e.max<=0.3m", false, "0.333m", ""},
		{"e2e.max<=1h", true, "0.006h", ""},     // hours, as time.ParseDuration reads them
		{"e2e.max<=0.005h", false, "", ""},      // 18 s
		{"e2e.max<=1m30s", true, "20000ms", ""}, // a compound duration is held in ms
		{"e2e.max<20s", false, "", ""},
		{"lateness.p99<=1ms", true, "", ""},
		{"queue_wait.mean<=0.2ms", false, "0.25ms", ""},
		{"tpot.p50<=50ms", false, "-", "no tpot samples"},
	})
}

func TestRequireGoodput(t *testing.T) {
	s := requireRun()
	runRequireCases(t, s, nil, []requireCase{
		{"goodput>=95%", false, "-", "no SLO in the run"},
	})
	s.Goodput = &analysis.Goodput{SLO: "ttft=500ms", AllPct: 96.25}
	runRequireCases(t, s, nil, []requireCase{
		{"goodput>=95%", true, "96.25%", ""},
		{"goodput>=95", true, "96.25%", ""}, // a bare number is a percentage
		{"goodput>=97%", false, "96.25%", ""},
		{"goodput<100%", true, "", ""},
	})
}

func TestRequireErrors(t *testing.T) {
	runRequireCases(t, requireRun(), nil, []requireCase{
		{"errors<=2%", true, "2%", ""}, // 4 of 200
		{"errors<2%", false, "2%", ""},
		{"errors<=1%", false, "2%", ""},
		{"errors<=4", true, "4", ""}, // no % sign: a count
		{"errors<=3", false, "4", ""},
		{"errors==0", false, "4", ""},
	})
	empty := &analysis.Summary{}
	runRequireCases(t, empty, nil, []requireCase{
		{"errors<=1%", false, "-", "no requests"},
		{"errors==0", true, "0", ""},
	})
}

func TestRequireFidelity(t *testing.T) {
	s := requireRun()
	runRequireCases(t, s, nil, []requireCase{
		{"fidelity.prompt>=100%", true, "100%", ""},
		{"fidelity.prompt>=100", true, "100%", ""},
		{"fidelity.output>=100%", false, "97.5%", ""},
		{"fidelity.output>=97.5%", true, "97.5%", ""},
	})
	s.Fidelity = analysis.Fidelity{}
	runRequireCases(t, s, nil, []requireCase{
		{"fidelity.prompt>=100%", false, "-", "no usage reported"},
		{"fidelity.output>=0%", false, "-", "no usage reported"},
	})
}

func TestRequireThroughput(t *testing.T) {
	runRequireCases(t, requireRun(), nil, []requireCase{
		{"throughput.req_s>=3", true, "3.267", ""},
		{"throughput.req_s>=3.5", false, "3.267", ""},
		{"throughput.output_tok_s>800", true, "812.5", ""},
		{"throughput.output_tok_s>=1e3", false, "812.5", ""},
	})
	runRequireCases(t, &analysis.Summary{}, nil, []requireCase{
		{"throughput.req_s>=0", false, "-", "no requests"},
	})
}

func TestRequireDelta(t *testing.T) {
	a := requireRun()
	b := requireRun()
	b.TTFT.P95 = 453.53 // +10% exactly, up to float noise
	b.E2E.P50 = 7900    // 12 ms faster
	runRequireCases(t, b, a, []requireCase{
		{"delta.ttft.p95<=+10%", true, "+10% (A 412.3ms, B 453.53ms)", ""},
		{"delta.ttft.p95<+10%", false, "", ""},
		{"delta.ttft.p95<=10%", true, "", ""}, // the sign is optional
		{"delta.ttft.p95<=+5%", false, "", ""},
		{"delta.ttft.p95<=+50ms", true, "+41.23ms (A 412.3ms, B 453.53ms)", ""},
		{"delta.ttft.p95<=+0.04s", false, "+0.041s (A 412.3ms, B 453.53ms)", ""},
		{"delta.e2e.p50<=-10ms", true, "-12ms (A 7912ms, B 7900ms)", ""},
		{"delta.e2e.p50<=-1%", false, "", ""},
		{"delta.ttft.p50==+0%", true, "+0% (A 120ms, B 120ms)", ""},
		{"delta.tpot.p95<=+10%", false, "-", "A has no tpot samples"},
	})
	a.ITL.P99 = 0
	runRequireCases(t, b, a, []requireCase{
		{"delta.itl.p99<=+10%", false, "-", "A's itl.p99 is 0"},
		{"delta.itl.p99<=+60ms", true, "+55.5ms (A 0ms, B 55.5ms)", ""},
	})
	// Without a baseline a delta fails with its reason; other terms are judged on s.
	runRequireCases(t, b, nil, []requireCase{
		{"delta.ttft.p95<=+10%", false, "-", "baseline"},
		{"ttft.p95<=500ms", true, "", ""},
	})
	if o := mustParse(t, "delta.ttft.p95<=+10%")[0].Check(b); o.Pass || !strings.Contains(o.Reason, "baseline") {
		t.Errorf("Check of a delta: %+v", o)
	}
}

func mustParse(t *testing.T, expr string) []Requirement {
	t.Helper()
	reqs, err := Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

func TestParseList(t *testing.T) {
	expr := "ttft.p95<=500ms, itl.p99<=60ms,e2e.p50<=8s,goodput>=95%,errors<=1%,fidelity.prompt>=100%,delta.ttft.p95<=+10%,errors<=3"
	reqs := mustParse(t, expr)
	want := []Requirement{
		{"ttft.p95", "<=", 500, "ms"}, {"itl.p99", "<=", 60, "ms"}, {"e2e.p50", "<=", 8, "s"},
		{"goodput", ">=", 95, "%"}, {"errors", "<=", 1, "%"}, {"fidelity.prompt", ">=", 100, "%"},
		{"delta.ttft.p95", "<=", 10, "%"}, {"errors", "<=", 3, ""},
	}
	if len(reqs) != len(want) {
		t.Fatalf("got %+v", reqs)
	}
	for i := range want {
		if reqs[i] != want[i] {
			t.Errorf("term %d: %+v, want %+v", i+1, reqs[i], want[i])
		}
	}
	const canonical = "ttft.p95<=500ms,itl.p99<=60ms,e2e.p50<=8s,goodput>=95%,errors<=1%,fidelity.prompt>=100%,delta.ttft.p95<=+10%,errors<=3"
	if got := Format(reqs); got != canonical {
		t.Errorf("Format = %q", got)
	}
	if got := Format(mustParse(t, "e2e.p50<=1h30m,e2e.p99<=2h")); got != "e2e.p50<=5.4e+06ms,e2e.p99<=2h" {
		t.Errorf("Format of Go durations = %q", got)
	}
	if reqs, err := Parse("  "); err != nil || reqs != nil {
		t.Errorf("empty: %v, %v", reqs, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"ttft.p95<=500ms,ttft.p96<=500ms", `requirement 2 "ttft.p96<=500ms": unknown statistic "p96" (want p50, p90, p95, p99, p999, max, mean)`},
		{"ttf.p95<=500ms", `requirement 1 "ttf.p95<=500ms": unknown metric "ttf" (want ttft, ttft_sched, ttfat, itl, tpot, e2e, e2e_sched, lateness, queue_wait)`},
		{"latency<=5s", `unknown term "latency" (want <metric>.<stat>, goodput`},
		{"ttft<=5s", `want <metric>.<stat>, e.g. ttft.p95, not "ttft"`},
		{"ttft.p95.x<=5s", `want <metric>.<stat>`},
		{"delta.ttft<=+10%", `want <metric>.<stat>`},
		{"delta.foo.p95<=+10%", `unknown metric "foo"`},
		{"fidelity.input>=100%", `unknown fidelity figure "input" (want prompt or output)`},
		{"throughput.tok_s>=1", `unknown throughput figure "tok_s"`},
		{"ttft.p95 500ms", `requirement 1 "ttft.p95 500ms": no comparison (want <=, <, >=, > or ==`},
		{"ttft.p95=500ms", `unknown comparison in "=500ms"`},
		{"ttft.p95!=500ms", `unknown comparison`},
		{"ttft.p95<=", `no limit after the comparison`},
		{"ttft.p95<=fast", `limit "fast": want a number`},
		{"ttft.p95<=0x1p3ms", `want a number`},
		{"ttft.p95<=NaN", `want a number`},
		{"ttft.p95<=inf", `want a number`},
		{"ttft.p95<=1e400ms", `out of range`},
		{"ttft.p95<=1e306m", `out of range`},
		{"ttft.p95<=500kb", `ttft.p95 takes a duration (ns, us, µs, ms, s, m or h, or a Go duration such as 1h30m), not unit "kb"`},
		{"e2e.max<=1h30", `want a number`},
		{"e2e.max<=1h30x", `want a number`},
		{"ttft.p95<=10%", `takes a duration`},
		{"ttft.p95<=-5ms", `want a non-negative number`},
		{"goodput>=95ms", `goodput takes a percentage (e.g. 95%), not unit "ms"`},
		{"goodput>=101%", `want at most 100%`},
		{"errors<=1ms", `errors takes a percentage (1%) or a count (3)`},
		{"throughput.req_s>=5%", `takes a plain number (per second)`},
		{"delta.ttft.p95<=10", `takes a signed percentage or duration (e.g. +10% or +50ms), not a bare number`},
		{"delta.ttft.p95<=+10kb", `not unit "kb"`},
		{"ttft.p95<=5ms,,e2e.p50<=1s", `requirement 2 "": empty term`},
		{"ttft.p95<=5ms,", `requirement 2 "": empty term`},
	} {
		_, err := Parse(c.expr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.expr, err, c.want)
		}
	}
}

// A requirement built by hand is checked as strictly as a parsed one.
func TestRequirementByHand(t *testing.T) {
	s := requireRun()
	for _, r := range []Requirement{
		{Term: "ttft.p96", Op: "<=", Limit: 5, Unit: "ms"},
		{Term: "ttft.p95", Op: "=", Limit: 5, Unit: "ms"},
		{Term: "ttft.p95", Op: "<=", Limit: 5, Unit: ""},
		{Term: "goodput", Op: ">=", Limit: 95, Unit: "ms"},
		{},
	} {
		if o := r.Check(s); o.Pass || o.Reason == "" {
			t.Errorf("%+v: %+v", r, o)
		}
		if o := r.CheckPaired(s, s); o.Pass || o.Reason == "" {
			t.Errorf("paired %+v: %+v", r, o)
		}
	}
	if o := (Requirement{Term: "ttft.p95", Op: "<=", Limit: 1, Unit: "s"}).Check(nil); o.Pass || o.Reason != "no summary" {
		t.Errorf("nil summary: %+v", o)
	}
}

func TestWriteOutcomes(t *testing.T) {
	s := requireRun()
	outs, ok := CheckAll(mustParse(t, "ttft.p95<=500ms,goodput>=95%,errors<=1%"), s, nil)
	if ok {
		t.Fatal("all passed")
	}
	var buf bytes.Buffer
	if err := WriteOutcomes(&buf, outs); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"pass  ttft.p95  412.3ms  <=500ms\n" +
		"FAIL  goodput   -        >=95%  no SLO in the run: goodput needs one (--slo)\n" +
		"FAIL  errors    2%       <=1%\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
