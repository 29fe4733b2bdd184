package gatewaylog

import (
	"bytes"

	"github.com/llm-replay/replay/trace"
)

// kongSchema reads Kong AI Gateway's request logs: Kong's log serializer output (what the
// file-log, http-log, tcp-log and kafka-log plugins write, one JSON object a request) with the
// AI plugins' block. Kong's serializer gives started_at (epoch milliseconds), latencies.request
// (milliseconds), request (method, uri), response.status, consumer (username, id), route and
// service. The AI block is documented in Kong's "AI Gateway audit log reference" (Kong Gateway
// 3.6 and later): per plugin, ai.<plugin>.usage.prompt_tokens, completion_tokens, total_tokens,
// cost, time_per_token; ai.<plugin>.meta.request_model, response_model, provider_name,
// plugin_id, llm_latency and request_mode (stream or oneshot); ai.<plugin>.payload.request and
// .response (the bodies as strings, with log_payloads on). The plugin's key is "proxy" in the
// current reference and "ai-proxy" in earlier releases' logs; both are read, and the
// singular usage names (prompt_token, completion_token) some releases logged too. Cached prompt
// tokens and reasoning tokens are in no documented usage field; they are read from the logged
// response payload's OpenAI usage (prompt_tokens_details.cached_tokens,
// completion_tokens_details.reasoning_tokens) when the payload is there, through the JSON
// string it is held in. Records without an AI block (the gateway's other traffic) are skipped.
var kongSchema = Schema{
	Format:  "kong-ai",
	Doc:     "Kong AI Gateway logs (Kong log serializer with the ai block; AI Gateway audit log reference, 3.6+)",
	Reads:   "Kong AI Gateway's logs (the log serializer's ai block)",
	Example: `{"started_at":1737710446847,"ai":{"proxy":{"usage":{"prompt_tokens":700,"completion_tokens":64},"meta":{"request_model":"gpt-4o-mini"}}}}`,
	Time:    "started_at",
	Sniff: func(first []byte) bool {
		return bytes.Contains(first, []byte(`"started_at"`)) && bytes.Contains(first, []byte(`"ai"`)) && bytes.Contains(first, []byte(`"usage"`))
	},
	Read: readKong,
}

func readKong(rec Record) (Entry, error) {
	e := NewEntry()
	ai := firstPresent(rec.Get("ai", "proxy"), rec.Get("ai", "ai-proxy"))
	if !ai.Get("usage").Exists() {
		return e, ErrNotModelRequest
	}
	var err error
	if e.Start, _, err = rec.Get("started_at").Time(rec.Year); err != nil {
		return e, err
	}
	if e.Start.IsZero() {
		return e, rec.Get("started_at").Err("missing")
	}
	u := ai.Get("usage")
	if e.PromptTokens, err = requiredInt(firstPresent(u.Get("prompt_tokens"), u.Get("prompt_token"))); err != nil {
		return e, err
	}
	if e.OutputTokens, err = requiredInt(firstPresent(u.Get("completion_tokens"), u.Get("completion_token"))); err != nil {
		return e, err
	}
	meta := ai.Get("meta")
	e.Model = firstString(meta.Get("request_model"), meta.Get("response_model"))
	switch mode, _ := meta.Get("request_mode").String(); mode {
	case "stream":
		t := true
		e.Stream = &t
	case "oneshot":
		f := false
		e.Stream = &f
	}
	e.API = trace.APIChat
	payload := ai.Get("payload")
	if e.CachedTokens, err = cachedOf(payload.Get("response", "usage", "prompt_tokens_details", "cached_tokens")); err != nil {
		return e, err
	}
	if e.ReasoningTokens, err = usageReasoning(e.OutputTokens, payload.Get("response", "usage")); err != nil {
		return e, err
	}
	if err := samplingInto(&e, payload.Get("request")); err != nil {
		return e, err
	}
	if code, ok, err := rec.Get("response", "status").Int(); err != nil {
		return e, err
	} else if ok {
		e.Status = code
	}
	e.Key = firstString(rec.Get("consumer", "username"), rec.Get("consumer", "id"))
	e.Headers = headersOf(rec.Get("request", "headers"))
	return e, nil
}
