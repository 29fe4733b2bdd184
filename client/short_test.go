package client

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// lengthStream is n content chunks ending with finish_reason reason and a usage of completion
// tokens (none when completion < 0), then [DONE].
func lengthStream(n int, reason string, completion int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(okChunk)
	}
	fmt.Fprintf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%q}]}\n\n", reason)
	if completion >= 0 {
		fmt.Fprintf(&b, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":%d}}\n\n", completion)
	}
	b.WriteString(okDone)
	return b.String()
}

// finish_reason "length" is judged against max_tokens by usage only.
func TestShort(t *testing.T) {
	cases := []struct {
		name      string
		body      string
		maxTokens int
		omitUsage bool
		class     string
	}{
		{"length below max_tokens", lengthStream(3, "length", 3), 8, false, ErrShort},
		{"length at max_tokens", lengthStream(8, "length", 8), 8, false, ""},
		// Chunks are not tokens: 3 chunks may carry 8 tokens.
		{"few chunks, usage at max", lengthStream(3, "length", 8), 8, false, ""},
		{"stop below max_tokens", lengthStream(3, "stop", 3), 8, false, ""},
		{"length without usage", lengthStream(3, "length", -1), 8, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := rawSSE(t, tc.body)
			c := newClient(t, srv.URL, APIChat, func(c *Config) { c.OmitUsage = tc.omitUsage })
			r := c.Do(context.Background(), Request{Prompt: "x", MaxTokens: tc.maxTokens}, newClock())
			if r.ErrorClass != tc.class {
				t.Fatalf("class %q (%s), want %q", r.ErrorClass, r.ErrorMessage, tc.class)
			}
			if tc.class == ErrShort && !strings.Contains(r.ErrorMessage, "at 3 completion tokens of max_tokens 8") {
				t.Fatalf("message %q", r.ErrorMessage)
			}
		})
	}
}

// ExtraBody's max_tokens or max_completion_tokens is what the server was sent, so it is what
// a short answer is judged against; a value that is not an integer leaves it unjudged.
func TestShortExtraOverride(t *testing.T) {
	srv := rawSSE(t, lengthStream(5, "length", 5))
	for _, tc := range []struct {
		extra map[string]any
		class string
	}{
		{map[string]any{"max_tokens": 5}, ""},
		{map[string]any{"max_tokens": 9}, ErrShort},
		{map[string]any{"max_tokens": 100, "max_completion_tokens": 5}, ""},
		{map[string]any{"max_tokens": "lots"}, ""},
	} {
		c := newClient(t, srv.URL, APIChat, func(c *Config) { c.ExtraBody = tc.extra })
		r := c.Do(context.Background(), Request{Prompt: "x", MaxTokens: 50}, newClock())
		if r.ErrorClass != tc.class {
			t.Errorf("extra %v: class %q (%s), want %q", tc.extra, r.ErrorClass, r.ErrorMessage, tc.class)
		}
	}
}
