package gatewaylog

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/trace"
)

// TestPortkey reads the logs-export fixture: created_at as ClickHouse's zoneless text, RFC
// 3339 and epoch ms, out of arrival order; the columns dotted as one key (request.body,
// metadata.key/value as parallel arrays and as one pair) and nested (request: {body}), and the
// API export's request and response as the payloads; req_units and res_units as numbers and
// strings; stream_mode as TRUE/FALSE/false strings and a bool, else the body's stream; cached
// tokens from the response body's usage (OpenAI's and Anthropic's shapes), none without it;
// the cap from max_tokens and max_completion_tokens; the API from request_url; the key from
// metadata's _user, else the virtual key; a semantic cache hit skipped; a bad req_units
// rejected, named by line and field.
func TestPortkey(t *testing.T) {
	checkRecords(t, "portkey.jsonl", "portkey", []want{
		{0, 1200, 80, 1024, "gpt-4o-mini", trace.APIChat, "true", 256},
		{653 * time.Millisecond, 400, 20, -1, "gpt-3.5-turbo-instruct", trace.APICompletions, "false", 32},
		{2153 * time.Millisecond, 900, 60, 300, "claude-sonnet-4-5", trace.APIMessages, "false", 1024},
		{2403 * time.Millisecond, 64, 0, -1, "text-embedding-3-small", trace.APIEmbeddings, "false", 0},
	}, 1, 1)
	checkRejected(t, "portkey.jsonl", "portkey", 6, "req_units")
}

// TestPortkeyKey: the key is metadata's _user from parallel arrays, an object or JSON held in
// a string, else the virtual key.
func TestPortkeyKey(t *testing.T) {
	for _, c := range []struct{ row, key string }{
		{`{"metadata.key":["env","_user"],"metadata.value":["prod","u-1"],"virtual_key":"vk"}`, "u-1"},
		{`{"metadata":{"key":["_user"],"value":["u-2"]}}`, "u-2"},
		{`{"metadata":"{\"_user\": \"u-3\"}","virtual_key":"vk"}`, "u-3"},
		{`{"metadata.key":"env","metadata.value":"prod","virtual_key":"vk"}`, "vk"},
		{`{"metadata.key":["_user"],"metadata.value":[]}`, ""},
	} {
		rec, err := decodeRecord([]byte(c.row), 2025)
		if err != nil {
			t.Fatal(err)
		}
		if got := firstString(portkeyMeta(rec, "_user"), rec.Get("virtual_key")); got != c.key {
			t.Errorf("%s: key %q, want %q", c.row, got, c.key)
		}
	}
}
