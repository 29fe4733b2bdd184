package client

import (
	"context"
	"net/http/httptest"
	"testing"
)

// A verbatim body is sent byte for byte but for its model, to the path of its own API; its
// stream flag decides how the answer is read, and the extra body is not added.
func TestVerbatimBody(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APICompletions, func(c *Config) { c.ExtraBody = map[string]any{"ignore_eos": true} })
	for _, tc := range []struct{ name, api, in, want, path string }{
		{"streamed chat", APIChat,
			`{ "messages" : [{"role":"user","content":"hi"}], "model": "gpt-4o" , "stream":true,"stream_options":{"include_usage":true},"temperature":0.0}`,
			`{ "messages" : [{"role":"user","content":"hi"}], "model": "m" , "stream":true,"stream_options":{"include_usage":true},"temperature":0.0}`,
			"/v1/chat/completions"},
		{"not streamed, no model", APIChat,
			`{"messages":[{"role":"user","content":"hi"}],"max_tokens":3}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":3}`,
			"/v1/chat/completions"},
		{"completions, the client's API", "",
			`{"model":{"odd":["x"]},"prompt":"hi","stream":false}`,
			`{"model":"m","prompt":"hi","stream":false}`,
			"/v1/completions"},
		{"empty object", "", `{}`, `{"model":"m"}`, "/v1/completions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Do(context.Background(), Request{Body: []byte(tc.in), API: tc.api}, newClock())
			rc.mu.Lock()
			got, path := string(rc.bodies[len(rc.bodies)-1]), rc.paths[len(rc.paths)-1]
			rc.mu.Unlock()
			if got != tc.want || path != tc.path {
				t.Fatalf("sent %s to %s\nwant %s to %s", got, path, tc.want, tc.path)
			}
			if tc.name != "empty object" && !r.OK() {
				t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
			}
		})
	}
}

// A logged body that is not one JSON object, or an unknown API, fails on this machine.
func TestVerbatimBodyInvalid(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	for _, req := range []Request{{Body: []byte(`[1]`)}, {Body: []byte(`{"model":"x"} {}`)}, {Body: []byte(`{"model":"x"}`), API: "rerank"}} {
		if r := c.Do(context.Background(), req, newClock()); r.ErrorClass != ErrClient {
			t.Errorf("%s: class %q (%s)", req.Body, r.ErrorClass, r.ErrorMessage)
		}
	}
	if len(rc.bodies) != 0 {
		t.Fatalf("%d bodies sent", len(rc.bodies))
	}
}
