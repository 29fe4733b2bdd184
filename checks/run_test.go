package checks

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/sim"
)

// TestRunNeverFailsWhole: a configuration that cannot be probed, an endpoint that refuses
// connections, one that hangs past the timeout and one that answers garbage each give every
// check a Fail with its reason, quickly, and no panic.
func TestRunNeverFailsWhole(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // net/http notices a client gone only once the body is read
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer hang.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {not json\n\n")
	}))
	defer garbage.Close()
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no model", Config{BaseURL: "http://127.0.0.1:1/v1"}, "Model is empty"},
		{"bad URL", Config{BaseURL: "localhost:8000", Model: "m"}, "not an http(s) URL"},
		{"bad API", Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", API: "responses"}, `API must be "chat" or "completions"`},
		{"refused", Config{BaseURL: closed + "/v1", Model: "m"}, "sending to " + closed + "/v1/chat/completions"},
		{"hangs", Config{BaseURL: hang.URL + "/v1", Model: "m", Timeout: 50 * time.Millisecond}, "context deadline exceeded"},
		{"garbage", Config{BaseURL: garbage.URL + "/v1", Model: "m"}, "not JSON"},
	}
	for _, tc := range cases {
		start := time.Now()
		res := Run(t.Context(), tc.cfg)
		if len(res) != len(probes) {
			t.Fatalf("%s: %d results", tc.name, len(res))
		}
		for _, r := range res {
			if r.Verdict() != VerdictFail || len(r.Examples) == 0 || !strings.Contains(r.Examples[0], tc.want) {
				t.Errorf("%s: %s %s %q, want a fail saying %q", tc.name, r.Name, r.Verdict(), r.Examples, tc.want)
			}
		}
		// An endpoint that answered nothing of the first probe is not probed further.
		if tc.name == "hangs" && !strings.Contains(res[len(res)-1].Examples[0], "not probed: the streaming probe got no answer within its 50ms timeout") {
			t.Errorf("hangs: the last probe %q", res[len(res)-1].Examples)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", tc.name, d)
		}
	}
}

// TestCompletionsAPI: on the completions API the tool and structured-output checks are skipped
// (it has neither), and the others pass on the simulator.
func TestCompletionsAPI(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.StepBase, cfg.StepPerSeq, cfg.StepPerKVToken = 3*time.Millisecond, 0, 0
	url := startSim(t, cfg)
	for _, r := range Run(t.Context(), Config{BaseURL: url + "/v1", API: APICompletions, Model: "m"}) {
		want := VerdictPass
		if r.Name == ToolCalls || r.Name == StructuredOutput {
			want = VerdictSkipped
		}
		if r.Verdict() != want {
			t.Errorf("%s: %s (%+v), want %s", r.Name, r.Verdict(), r, want)
		}
	}
}

// TestAPIKeyNeverQuoted: the key is sent as a Bearer token, and a server that quotes it back in
// an error does not put it in a Result.
func TestAPIKeyNeverQuoted(t *testing.T) {
	const key = "sk-secret-0123456789"
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"bad key %s"}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer hs.Close()
	for _, r := range Run(t.Context(), Config{BaseURL: hs.URL + "/v1", Model: "m", APIKey: key}) {
		all := fmt.Sprint(r)
		if strings.Contains(all, key) || !strings.Contains(all, "[api key]") || !strings.Contains(all, "HTTP 401") {
			t.Errorf("%s: %s", r.Name, all)
		}
	}
}
