package gatewaylog

import (
	"bytes"
	"strings"
	"time"

	"github.com/llm-replay/replay/trace"
)

// heliconeSchema reads Helicone's request export: the rows of its request query API
// (POST /v1/request/query-clickhouse) as its export tool writes them (npx @helicone/export,
// examples/export/typescript/index.ts: JSONL by default, or one JSON array with --format json;
// its CSV keeps only a few columns and is not read). A row is the HeliconeRequest of
// packages/llm-mapper/types.ts (Helicone/helicone 301a87bce5fb524ab59aeacc6b44c44ba447ea88), as
// getRequestsClickhouse selects it from request_response_rmt
// (valhalla/jawn/src/lib/stores/request/request.ts, 0003b753b4b7e0e2dfded3a80a033ca6531153f8).
// The members read:
//   - request_created_at (the arrival), response_created_at and delay_ms (the latency in ms):
//     ClickHouse's DateTime64 as JSON writes it ("2025-01-24 09:20:46.847", UTC) or RFC 3339;
//     a row without request_created_at starts at response_created_at less delay_ms;
//   - prompt_tokens, prompt_cache_read_tokens, prompt_cache_write_tokens, prompt_audio_tokens,
//     completion_tokens, completion_audio_tokens;
//   - request_model, model, response_model; request_path (the API); response_status;
//   - request_body (with --include-body; an object, or JSON held in a string), for stream,
//     the cap and sampling; without bodies it is a placeholder message and none are known;
//   - properties or request_properties["Helicone-Session-Id"], request_user_id: the key.
//
// Cached tokens: Helicone's prompt_tokens EXCLUDES the cached ones. Its OpenAI usage
// processing stores prompt_tokens less prompt_tokens_details.cached_tokens and audio_tokens
// (packages/cost/usage/openAIUsageProcessor.ts, 05291bc7bdfca452e21783804574fdb3b47aa197;
// valhalla/jawn/src/lib/shared/bodyProcessors/openaiBodyProcessor.ts,
// 088ab76a7862eab5712aea79a37bcfd66def428f), and Anthropic's input_tokens, stored as they
// come (anthropicBodyProcessor.ts, 0d0b9e12d8fcbfc64afe67515b48a10e09381939), exclude both
// cache reads and writes. The whole prompt replayed is therefore prompt_tokens plus the cache
// reads, cache writes and audio tokens; the output is completion_tokens plus its audio tokens.
// Where a gateway-translated usage already counted cache writes in prompt_tokens, this counts
// them twice; Helicone's rows do not say which path a request took.
//
// Skipped: Helicone's custom events (request_body._type tool, vector_db or data, logged with
// its manual logger: no model ran) and the responses Helicone served from its own cache
// (cache_reference_id other than the zero UUID: no engine saw them).
var heliconeSchema = Schema{
	Format:  "helicone",
	Doc:     "Helicone request export (HeliconeRequest, packages/llm-mapper/types.ts; /v1/request/query-clickhouse)",
	Reads:   "Helicone's request export",
	Example: `{"request_created_at":"2025-01-24 09:20:46.847","request_model":"gpt-4o-mini","prompt_tokens":700,"completion_tokens":64}`,
	Time:    "request_created_at",
	Sniff: func(first []byte) bool {
		has := func(k string) bool { return bytes.Contains(first, []byte(`"`+k+`"`)) }
		return has("request_id") && has("request_created_at") && (has("prompt_cache_read_tokens") || has("delay_ms"))
	},
	Read: readHelicone,
}

// heliconeNoCache is the cache_reference_id of a request not answered from Helicone's cache
// (DEFAULT_UUID in packages/llm-mapper/types.ts).
const heliconeNoCache = "00000000-0000-0000-0000-000000000000"

// heliconeEvents are the request_body._type values of Helicone's custom (non-LLM) events.
var heliconeEvents = map[string]bool{"tool": true, "vector_db": true, "data": true}

func readHelicone(rec Record) (Entry, error) {
	e := NewEntry()
	body := rec.Get("request_body")
	if t, _ := body.Get("_type").String(); heliconeEvents[t] {
		return e, ErrNotModelRequest
	}
	if ref, _ := rec.Get("cache_reference_id").String(); ref != "" && ref != heliconeNoCache {
		return e, ErrNotModelRequest
	}
	var err error
	if e.Start, _, err = rec.Get("request_created_at").Time(rec.Year); err != nil {
		return e, err
	}
	if e.Start.IsZero() {
		if e.End, _, err = rec.Get("response_created_at").Time(rec.Year); err != nil {
			return e, err
		}
		if e.End.IsZero() {
			return e, rec.Get("request_created_at").Err("missing, and no response_created_at to take delay_ms from")
		}
		ms, ok, err := rec.Get("delay_ms").Int()
		if err != nil {
			return e, err
		}
		if !ok {
			return e, rec.Get("delay_ms").Err("missing: without request_created_at the start is response_created_at less delay_ms")
		}
		e.Latency = time.Duration(ms) * time.Millisecond
	}
	if e.PromptTokens, err = requiredInt(rec.Get("prompt_tokens")); err != nil {
		return e, err
	}
	if e.OutputTokens, err = requiredInt(rec.Get("completion_tokens")); err != nil {
		return e, err
	}
	read, readOK, err := rec.Get("prompt_cache_read_tokens").Int()
	if err != nil {
		return e, err
	}
	for _, k := range []string{"prompt_cache_write_tokens", "prompt_audio_tokens"} {
		n, _, err := rec.Get(k).Int()
		if err != nil {
			return e, err
		}
		e.PromptTokens += n
	}
	e.PromptTokens += read
	if readOK {
		e.CachedTokens = read
	}
	n, _, err := rec.Get("completion_audio_tokens").Int()
	if err != nil {
		return e, err
	}
	e.OutputTokens += n
	e.Model = firstString(rec.Get("request_model"), rec.Get("model"), rec.Get("response_model"))
	path, _ := rec.Get("request_path").String()
	e.API = heliconeAPI(path)
	if b, ok := body.Get("stream").Bool(); ok {
		e.Stream = &b
	}
	if err := samplingInto(&e, body); err != nil {
		return e, err
	}
	if code, ok, err := rec.Get("response_status").Int(); err != nil {
		return e, err
	} else if ok {
		e.Status = code
	}
	e.Key = firstString(rec.Get("properties", "Helicone-Session-Id"), rec.Get("request_properties", "Helicone-Session-Id"), rec.Get("request_user_id"))
	return e, nil
}

// heliconeAPI is the API of a logged request path (a path or the provider's whole URL), ""
// when it is none replay knows.
func heliconeAPI(path string) string {
	path, _, _ = strings.Cut(path, "?")
	for _, a := range []struct{ suffix, api string }{
		{"/chat/completions", trace.APIChat},
		{"/completions", trace.APICompletions},
		{"/embeddings", trace.APIEmbeddings},
		{"/responses", trace.APIResponses},
		{"/messages", trace.APIMessages},
	} {
		if strings.HasSuffix(strings.TrimRight(path, "/"), a.suffix) {
			return a.api
		}
	}
	return ""
}
