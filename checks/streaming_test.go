package checks

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestStreamingAsksAgainWhenTheModelEndsAtOnce: an answer the model ended before any content
// (finish_reason stop, nothing streamed) says nothing about streaming: the probe asks again
// with its next prompt and judges the first answer that carried content, saying how many
// ended first; when every prompt's answer ended at once, the check fails saying so, not
// "no streamed event carried content". llama-server with a small model does this at its
// default temperature (the e2e llama.cpp checks slice).
func TestStreamingAsksAgainWhenTheModelEndsAtOnce(t *testing.T) {
	cases := []struct {
		ended   int64
		verdict string
		text    string // in Seen when it passes, in the first example when it fails
	}{
		{0, VerdictPass, "content chunks"},
		{1, VerdictPass, "after 1 answer that ended before any content"},
		{int64(len(streamPrompts) - 1), VerdictPass, "after 2 answers that ended before any content"},
		{int64(len(streamPrompts)), VerdictFail, "the model ended each of its 3 streamed answers before any content"},
	}
	for _, tc := range cases {
		f := &fakeServer{}
		f.endAtOnce.Store(tc.ended)
		hs := httptest.NewServer(f)
		res := run(t.Context(), Config{BaseURL: hs.URL + "/v1", Model: "m", Timeout: 20 * time.Second}, []string{Streaming})
		hs.Close()
		if len(res) != 1 {
			t.Fatalf("%d ended: %d results, want 1", tc.ended, len(res))
		}
		r := res[0]
		got := r.Seen
		if tc.verdict == VerdictFail && len(r.Examples) > 0 {
			got = r.Examples[0]
		}
		if r.Verdict() != tc.verdict || !strings.Contains(got, tc.text) {
			t.Errorf("%d ended: %s %q (examples %q), want %s with %q", tc.ended, r.Verdict(), r.Seen, r.Examples, tc.verdict, tc.text)
		}
	}
}
