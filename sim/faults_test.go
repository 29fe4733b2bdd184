package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// classify names what a client saw, as the replay client's error classes do.
func classify(res sseResult) string {
	switch {
	case res.status == http.StatusInternalServerError:
		return "http_5xx"
	case res.status == http.StatusTooManyRequests:
		return "http_429"
	case res.status != http.StatusOK:
		return fmt.Sprintf("http_%d", res.status)
	case res.err != nil || !res.done:
		return "stream_broken"
	}
	return "ok"
}

func TestFaultInjectionOverHTTP(t *testing.T) {
	for _, zero := range []bool{true, false} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		cfg.Seed = 9
		cfg.Faults = Faults{ErrorRate: 0.2, RateLimitRate: 0.2, BreakRate: 0.2}
		run := func() []string {
			_, url := startServer(t, cfg)
			var classes []string
			for range 100 {
				res := post(t, url, "/v1/chat/completions", map[string]any{
					"messages": []map[string]string{{"role": "user", "content": "hi"}}, "max_tokens": 6, "stream": true})
				c := classify(res)
				if c == "stream_broken" && len(res.events) != 3 {
					t.Errorf("broken stream delivered %d chunks before the cut, want 3 (half)", len(res.events))
				}
				if c == "ok" && len(res.events) != 6 {
					t.Errorf("ok stream with %d chunks", len(res.events))
				}
				classes = append(classes, c)
			}
			return classes
		}
		a := run()
		b := run()
		if !slices.Equal(a, b) {
			t.Errorf("zero=%v: same seed, different fault sequences", zero)
		}
		count := map[string]int{}
		for _, c := range a {
			count[c]++
		}
		t.Logf("zero=%v: %v", zero, count)
		for _, c := range []string{"http_5xx", "http_429", "stream_broken"} {
			if count[c] < 8 || count[c] > 35 {
				t.Errorf("zero=%v: %s %d times in 100, want about 20", zero, c, count[c])
			}
		}
		if count["ok"]+count["http_5xx"]+count["http_429"]+count["stream_broken"] != 100 {
			t.Errorf("zero=%v: unexpected classes %v", zero, count)
		}
	}
}

func TestNonStreamingBreak(t *testing.T) {
	cfg := fastConfig()
	cfg.Faults.BreakRate = 1
	_, url := startServer(t, cfg)
	resp, err := http.Post(url+"/v1/completions", "application/json", jsonBody(map[string]any{"prompt": "a", "max_tokens": 4}))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got a response (%d), want a cut connection", resp.StatusCode)
	}
}

func TestStall(t *testing.T) {
	cfg := fastConfig()
	cfg.ZeroCost = true
	cfg.Faults = Faults{StallRate: 1, Stall: 150 * time.Millisecond}
	_, url := startServer(t, cfg)
	res := post(t, url, "/v1/completions", map[string]any{"prompt": "a", "max_tokens": 2, "stream": true})
	if classify(res) != "ok" || res.ttft < 150*time.Millisecond {
		t.Errorf("stalled request: %s, first chunk after %v (want >= 150ms)", classify(res), res.ttft)
	}
}

// allFaults spreads the rates over every fault and leaves 1/6 of requests unharmed.
func allFaults(stall time.Duration, at string) Faults {
	const r = 1.0 / 6
	return Faults{ErrorRate: r, RateLimitRate: r, BreakRate: r, StallRate: r, GarbageRate: r, Stall: stall, StallAt: at}
}

// idFor returns a request id whose drawn fault is want.
func idFor(t testing.TB, f Faults, seed int64, want Fault) string {
	t.Helper()
	for i := range 10000 {
		id := fmt.Sprintf("req-%d", i)
		if f.Draw(seed, id) == want {
			return id
		}
	}
	t.Fatalf("no id draws %v", want)
	return ""
}

func TestFaultString(t *testing.T) {
	want := []string{"none", "error", "rate_limit", "break", "stall", "garbage"}
	for i, w := range want {
		if got := Fault(i).String(); got != w {
			t.Errorf("Fault(%d) = %q, want %q", i, got, w)
		}
	}
	if got := Fault(-3).String(); got != "fault(-3)" {
		t.Errorf("unknown fault: %q", got)
	}
}

// TestFaultDrawProportions checks the exclusive draw on 100,000 ids and arrivals: each fault's
// share is its rate within 1 point, and the rest get none.
func TestFaultDrawProportions(t *testing.T) {
	f := Faults{ErrorRate: 0.05, RateLimitRate: 0.1, BreakRate: 0.15, StallRate: 0.2, GarbageRate: 0.25, Stall: time.Second}
	want := map[Fault]float64{FaultError: 0.05, FaultRateLimit: 0.1, FaultBreak: 0.15, FaultStall: 0.2, FaultGarbage: 0.25, FaultNone: 0.25}
	const n = 100000
	byID, byArrival := map[Fault]int{}, map[Fault]int{}
	for i := range n {
		byID[f.Draw(7, fmt.Sprintf("request-%d", i))]++
		byArrival[f.drawArrival(7, uint64(i+1))]++
	}
	for name, counts := range map[string]map[Fault]int{"id": byID, "arrival": byArrival} {
		for k, p := range want {
			if got := float64(counts[k]) / n; got < p-0.01 || got > p+0.01 {
				t.Errorf("by %s: %v share %.4f, want %.2f±0.01", name, k, got, p)
			}
		}
		if len(counts) != len(want) {
			t.Errorf("by %s: drew %v", name, counts)
		}
	}
}

func TestFaultDrawDeterministic(t *testing.T) {
	f := allFaults(time.Second, "")
	differ := 0
	for i := range 1000 {
		id := fmt.Sprintf("id-%d", i)
		a := f.Draw(3, id)
		if b := f.Draw(3, id); a != b {
			t.Fatalf("%s: %v then %v", id, a, b)
		}
		if f.Draw(4, id) != a {
			differ++
		}
	}
	if differ < 500 {
		t.Errorf("another seed changed only %d of 1000 draws", differ)
	}
	arrivals := func(seed int64) []Fault {
		var out []Fault
		for n := uint64(1); n <= 1000; n++ {
			out = append(out, f.drawArrival(seed, n))
		}
		return out
	}
	if a := arrivals(3); !slices.Equal(a, arrivals(3)) || slices.Equal(a, arrivals(4)) {
		t.Error("arrival draws do not follow the seed")
	}
	if got := (Faults{}).Draw(3, "x"); got != FaultNone {
		t.Errorf("no rates drew %v", got)
	}
	if got := (Faults{GarbageRate: 1}).Draw(3, ""); got != FaultGarbage {
		t.Errorf("garbage rate 1 drew %v", got)
	}
}

func TestFaultsValidate(t *testing.T) {
	bad := []struct {
		f    Faults
		want string
	}{
		{Faults{ErrorRate: 0.5, RateLimitRate: 0.3, StallRate: 0.1, GarbageRate: 0.2, Stall: time.Second}, "sum to at most 1"},
		{Faults{GarbageRate: math.NaN()}, "Faults.GarbageRate"},
		{Faults{StallRate: -0.1}, "Faults.StallRate"},
		{Faults{StallRate: 0.1}, "Stall"},
		{Faults{StallRate: 0.1, Stall: time.Second, StallAt: "middle"}, "Faults.StallAt"},
		{Faults{RetryAfter: -time.Second}, "Faults.RetryAfter"},
	}
	for _, b := range bad {
		cfg := fastConfig()
		cfg.Faults = b.f
		if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: %v, want an error naming %q", b.f, err, b.want)
		}
	}
	good := []Faults{
		{ErrorRate: 0.34, RateLimitRate: 0.56, GarbageRate: 0.1}, // sums to 1.0000000000000002
		{StallRate: 1, StallAt: StallFirstToken},                 // stalls until the client leaves
		{StallRate: 1, Stall: time.Second, StallAt: StallFirstByte},
		allFaults(time.Second, ""),
	}
	for _, f := range good {
		cfg := fastConfig()
		cfg.Faults = f
		if err := cfg.validate(); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
}

// TestRequestIDDrivesFault sends named requests concurrently, in two orders, and checks that
// each gets the fault Draw gives its id.
func TestRequestIDDrivesFault(t *testing.T) {
	const stall = 200 * time.Millisecond
	cfg := fastConfig()
	cfg.Seed = 11
	cfg.Faults = allFaults(stall, StallFirstToken)
	_, url := startServer(t, cfg)
	names := make([]string, 36)
	for i := range names {
		names[i] = fmt.Sprintf("trace-7/req-%d", i)
	}
	for _, order := range [][]string{names, reversed(names)} {
		got := make([]Fault, len(order))
		var wg sync.WaitGroup
		for i, id := range order {
			req := newPost(t, context.Background(), url, "/v1/chat/completions", id, tinyRequest(true, true, 4))
			wg.Go(func() { got[i] = do(req).outcome(stall) })
		}
		wg.Wait()
		for i, id := range order {
			if want := cfg.Faults.Draw(cfg.Seed, id); got[i] != want {
				t.Errorf("%s: client saw %v, Draw says %v", id, got[i], want)
			}
		}
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// TestEachFaultEverywhere sends a request drawing each fault in zero-cost and engine mode,
// streaming or not, chat and completions, with each stall place, and checks what the client
// sees: the fault Draw named, and a stall where StallAt puts it.
func TestEachFaultEverywhere(t *testing.T) {
	const stall = 300 * time.Millisecond
	for _, zero := range []bool{true, false} {
		for _, at := range []string{StallFirstByte, StallFirstToken} {
			cfg := fastConfig()
			cfg.ZeroCost = zero
			cfg.Faults = allFaults(stall, at)
			_, url := startServer(t, cfg)
			for _, stream := range []bool{true, false} {
				for _, chat := range []bool{true, false} {
					for f := FaultNone; f <= FaultGarbage; f++ {
						name := fmt.Sprintf("zero=%v/%s/stream=%v/chat=%v/%v", zero, at, stream, chat, f)
						id := idFor(t, cfg.Faults, cfg.Seed, f)
						t.Run(name, func(t *testing.T) {
							t.Parallel()
							o := send(t, context.Background(), url, endpoint(chat), id, tinyRequest(chat, stream, 4))
							if got := o.outcome(stall); got != f {
								t.Fatalf("client saw %v (status %d, %d events, err %v %v)", got, o.status, len(o.events), o.doErr, o.readErr)
							}
							checkFaultShape(t, o, f, at, stream, stall)
						})
					}
				}
			}
		}
	}
}

// checkFaultShape checks the details of an outcome: half an answer before a break, the stall
// at its place.
func checkFaultShape(t *testing.T, o observed, f Fault, at string, stream bool, stall time.Duration) {
	t.Helper()
	switch {
	case f == FaultBreak && stream && len(o.events) != 2:
		t.Errorf("break delivered %d of 4 chunks, want 2", len(o.events))
	case f == FaultStall && stream && len(o.events) != 4:
		t.Errorf("stalled stream delivered %d of 4 chunks", len(o.events))
	case f == FaultStall && stream && at == StallFirstByte && o.at[0] < stall:
		t.Errorf("first-byte stall: first chunk after %v", o.at[0])
	case f == FaultStall && stream && at == StallFirstToken && (o.at[0] >= stall || o.at[1] < stall || o.at[1]-o.at[0] < stall-deliverySlack):
		t.Errorf("first-token stall: chunks at %v", o.at)
	case f == FaultStall && !stream && at == StallFirstToken && (o.headers >= stall || o.end-o.headers < stall-deliverySlack):
		t.Errorf("first-token stall without streaming: headers at %v, body at %v", o.headers, o.end)
	case f == FaultStall && !stream && at == StallFirstByte && o.headers < stall:
		t.Errorf("first-byte stall without streaming: headers at %v", o.headers)
	}
}

func endpoint(chat bool) string {
	if chat {
		return "/v1/chat/completions"
	}
	return "/v1/completions"
}

// tinyRequest is a request body of maxTokens tokens.
func tinyRequest(chat, stream bool, maxTokens int) map[string]any {
	body := map[string]any{"max_tokens": maxTokens, "stream": stream}
	if chat {
		body["messages"] = []map[string]string{{"role": "user", "content": "hi"}}
	} else {
		body["prompt"] = "hi"
	}
	return body
}

// TestGarbageFrames checks a garbage answer's frames: status 200, an event stream, no frame
// JSON, and [DONE] last.
func TestGarbageFrames(t *testing.T) {
	for _, zero := range []bool{true, false} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		cfg.Faults.GarbageRate = 1
		_, url := startServer(t, cfg)
		for _, stream := range []bool{true, false} {
			o := send(t, context.Background(), url, "/v1/chat/completions", "", tinyRequest(true, stream, 3))
			if o.status != http.StatusOK || !o.sse || !o.done || o.readErr != nil || len(o.events) == 0 {
				t.Fatalf("zero=%v stream=%v: status %d, sse %v, done %v, %d frames, err %v", zero, stream, o.status, o.sse, o.done, len(o.events), o.readErr)
			}
			for _, e := range o.events {
				if json.Valid(e) {
					t.Errorf("zero=%v stream=%v: frame %q is JSON", zero, stream, e)
				}
			}
		}
	}
	if !strings.HasSuffix(garbageBody, "data: [DONE]\n\n") {
		t.Error("garbage does not end with [DONE]")
	}
}

// deliverySlack is how much shorter than a stall the gap between two chunks may look on the
// client's clock: the server holds the stream for the stall after writing the first chunk, and
// the gap also loses what that chunk's delivery was late by (1.5 ms once in a whole-suite run).
const deliverySlack = 5 * time.Millisecond
