package gatewaylog

import (
	"bytes"
	"encoding/json"
	"strings"
)

// portkeySchema reads Portkey's logs export, one JSON object a line (Portkey exports JSONL
// only). Its only definition is a list of column names and one-line descriptions, in the
// docs: "Logs Export", product/observability/logs-export.mdx (Portkey-AI/docs-core @
// 8a21f7808b5772c1d65d83295c19565ee7db56e2; the export requested by email), and the log
// exports API's requested_data options (portkey.ai/docs/api-reference/admin-api/data-plane/
// logs/log-exports-beta, "List a Log Export": id, trace_id, created_at, request, response,
// is_success, ai_org, ai_model, req_units, res_units, total_units, request_url, cost,
// cost_currency, response_time, response_status_code, mode, config, prompt_slug, metadata).
// Neither gives a row, a type or an encoding, so the reader takes each column in every form
// it could plausibly come in; what it assumes where the pages say nothing is marked so:
//   - Names: the email export's "request.body", "response.body", "metadata.key" and
//     "metadata.value" are read as one dotted key or as nested objects (request: {body:
//     ...}); the API export's "request" and "response" as the payloads themselves, or
//     objects holding a body. Any of them may be JSON held in a string. ASSUMED: the dotted
//     names look like ClickHouse columns (Nested metadata), so metadata.key and
//     metadata.value are read as parallel arrays, or as one key and value; the API's
//     metadata as an object.
//   - created_at, "Timestamp of the request": the arrival, in any form timestamp.go reads
//     (epoch numbers by magnitude, RFC 3339, ClickHouse's zoneless "2025-01-24 09:20:46.847"
//     read as UTC). ASSUMED: the pages do not say whether it is when the request arrived or
//     when its log was written; if the latter, every arrival is late by about its
//     response_time (milliseconds), which is not subtracted.
//   - req_units, res_units ("Number of tokens in the request / response"): the prompt and
//     output counts. ASSUMED: req_units is the whole prompt, cached tokens included, as the
//     OpenAI usage Portkey mirrors counts them; nothing in the pages says whether it excludes
//     them (as Anthropic's input_tokens does), in which case the replayed prompts are short
//     by the cached count. Cached tokens are no column: they are read from the response
//     body's usage where it was exported (prompt_tokens_details.cached_tokens, else
//     cache_read_input_tokens), else unknown; reasoning tokens likewise, from its
//     completion_tokens_details.reasoning_tokens (output_tokens_details' for the Responses API).
//   - stream_mode ("TRUE, FALSE"): as a bool, as those strings in any case, or as 1/0; else
//     the request body's stream. The cap, temperature and top_p come from the request body
//     (OpenAI's names), when it was exported.
//   - cache_status (SEMANTIC HIT, HIT, MISS, DISABLED): a HIT or SEMANTIC HIT was answered
//     from Portkey's cache, no model ran, so it is skipped.
//   - ai_model (else a model column, else the body's model), response_status_code,
//     request_url ("Final provider API URL": the API, by its path, as Helicone's).
//   - the key: metadata's _user, Portkey's user key (docs, "Metadata",
//     portkey.ai/docs/product/observability/metadata), else virtual_key. trace_id is not used:
//     the pages do not say whether Portkey fills it in per request when the client sends none.
//
// is_success, cost, mode, config and the rest are not read.
var portkeySchema = Schema{
	Format:  "portkey",
	Doc:     "Portkey logs export (docs: product/observability/logs-export; log exports API requested_data)",
	Reads:   "Portkey's logs export",
	Example: `{"created_at":"2025-01-24 09:20:46.847","ai_model":"gpt-4o-mini","req_units":1200,"res_units":80}`,
	Time:    "created_at",
	Sniff: func(first []byte) bool {
		has := func(k string) bool { return bytes.Contains(first, []byte(`"`+k+`"`)) }
		return has("req_units") && has("res_units") && has("created_at")
	},
	Read: readPortkey,
}

// portkeyGet is a column by its documented dotted name, held as one key or nested.
func portkeyGet(rec Record, name string) Value {
	if v := rec.Get(name); v.Exists() {
		return v
	}
	return rec.Get(strings.Split(name, ".")...)
}

// portkeyBody is a request's or response's payload: name.body (dotted or nested), else the
// column itself (the API export's request and response).
func portkeyBody(rec Record, name string) Value {
	if v := portkeyGet(rec, name+".body"); v.Exists() {
		return v
	}
	return rec.Get(name)
}

// portkeyBool reads TRUE/FALSE in any case, a bool, or 1/0.
func portkeyBool(v Value) (bool, bool) {
	if b, ok := v.Bool(); ok {
		return b, true
	}
	if n, ok := v.v.(json.Number); ok && v.ok && (n == "0" || n == "1") {
		return n == "1", true
	}
	return false, false
}

func readPortkey(rec Record) (Entry, error) {
	e := NewEntry()
	switch cs, _ := rec.Get("cache_status").String(); strings.ToUpper(strings.TrimSpace(cs)) {
	case "HIT", "SEMANTIC HIT":
		return e, ErrNotModelRequest // answered from Portkey's cache: no engine saw it
	}
	var err error
	if e.Start, _, err = rec.Get("created_at").Time(rec.Year); err != nil {
		return e, err
	}
	if e.Start.IsZero() {
		return e, rec.Get("created_at").Err("missing")
	}
	if e.PromptTokens, err = requiredInt(rec.Get("req_units")); err != nil {
		return e, err
	}
	if e.OutputTokens, err = requiredInt(rec.Get("res_units")); err != nil {
		return e, err
	}
	body := portkeyBody(rec, "request")
	usage := portkeyBody(rec, "response").Get("usage")
	if e.CachedTokens, err = cachedOf(usage.Get("prompt_tokens_details", "cached_tokens"), usage.Get("cache_read_input_tokens")); err != nil {
		return e, err
	}
	if e.ReasoningTokens, err = usageReasoning(e.OutputTokens, usage); err != nil {
		return e, err
	}
	if b, ok := portkeyBool(rec.Get("stream_mode")); ok {
		e.Stream = &b
	} else if b, ok := portkeyBool(body.Get("stream")); ok {
		e.Stream = &b
	}
	if err := samplingInto(&e, body); err != nil {
		return e, err
	}
	e.Model = firstString(rec.Get("ai_model"), rec.Get("model"), body.Get("model"))
	if u, ok := rec.Get("request_url").String(); ok {
		e.API = heliconeAPI(u)
	}
	code, ok, err := rec.Get("response_status_code").Int()
	if err != nil {
		return e, err
	}
	if ok {
		e.Status = code
	}
	e.Key = firstString(portkeyMeta(rec, "_user"), rec.Get("virtual_key"))
	return e, nil
}

// portkeyMeta is a custom metadata value by key: from a metadata object, or from the
// metadata.key and metadata.value columns (parallel arrays, or one key and one value).
func portkeyMeta(rec Record, key string) Value {
	if v := rec.Get("metadata").Get(key); v.Exists() {
		return v
	}
	keys, vals := portkeyGet(rec, "metadata.key"), portkeyGet(rec, "metadata.value")
	if k, ok := keys.String(); ok {
		if k == key {
			return vals
		}
		return Value{}
	}
	for i := range keys.Len() {
		if k, _ := keys.Index(i).String(); k == key {
			return vals.Index(i)
		}
	}
	return Value{}
}
