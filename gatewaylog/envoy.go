package gatewaylog

import (
	"bytes"
	"strings"
	"time"

	"github.com/llm-replay/replay/trace"
)

// envoySchema reads Envoy AI Gateway's access logs as JSON lines. Envoy writes one JSON object
// a request in the format the deployment configures; Envoy Gateway's default JSON access log
// (the EnvoyProxy telemetry defaults) names start_time (%START_TIME%, ISO 8601 with
// milliseconds), method, x-envoy-origin-path, response_code, duration (milliseconds),
// x-request-id, :authority and upstream_cluster. The AI Gateway adds the request's GenAI
// attributes from its filter's dynamic metadata (io.envoy.ai_gateway: model name, backend,
// input, output and total tokens), under keys the deployment chooses: its documentation's
// access-log examples use genai_model_name, genai_backend_name and genai_tokens_input/_output,
// and its OpenTelemetry access logs the GenAI semantic conventions' names, which hold dots as
// one key: gen_ai.request.model, gen_ai.response.model, gen_ai.usage.input_tokens,
// gen_ai.usage.output_tokens (and, for cache reads, gen_ai.usage.cache_read.input_tokens).
// Both families are read; a key this reader does not know can still be reached with the
// generic jsonl format and --map ["key.with.dots"]. Envoy never logs prompt text. A request
// with no token counts whose path is no LLM endpoint (an MCP route, a health check) is
// skipped; the stream flag is not in these logs.
//
// Uncertainty, said where it matters: the key names are the deployment's choice; those above
// are the ones the AI Gateway's documentation and the GenAI conventions give, not a fixed schema.
var envoySchema = Schema{
	Format:  "envoy-ai-gateway",
	Doc:     "Envoy AI Gateway JSON access logs (Envoy Gateway's default keys; genai_* or gen_ai.* token keys)",
	Reads:   "Envoy AI Gateway's JSON access logs",
	Example: `{"start_time":"2025-01-24T09:20:46.847Z","gen_ai.request.model":"qwen3-8b","gen_ai.usage.input_tokens":640,"gen_ai.usage.output_tokens":96}`,
	Time:    "start_time",
	Sniff: func(first []byte) bool {
		return bytes.Contains(first, []byte(`"start_time"`)) &&
			(bytes.Contains(first, []byte(`"gen_ai.usage.input_tokens"`)) || bytes.Contains(first, []byte(`"genai_tokens_input"`)))
	},
	Read: readEnvoy,
}

// envoyLLMPaths are the AI Gateway's LLM endpoints (its metrics documentation lists them), by
// the API each is.
var envoyLLMPaths = []struct{ suffix, api string }{
	{"/chat/completions", trace.APIChat}, {"/completions", trace.APICompletions},
	{"/embeddings", trace.APIEmbeddings}, {"/messages", trace.APIMessages}, {"/responses", trace.APIResponses},
}

func readEnvoy(rec Record) (Entry, error) {
	e := NewEntry()
	path := firstString(rec.Get("x-envoy-origin-path"), rec.Get("path"), rec.Get(":path"))
	path, _, _ = strings.Cut(path, "?")
	for _, p := range envoyLLMPaths {
		if strings.HasSuffix(path, p.suffix) {
			e.API = p.api
			break
		}
	}
	in := firstPresent(rec.Get("gen_ai.usage.input_tokens"), rec.Get("genai_tokens_input"))
	out := firstPresent(rec.Get("gen_ai.usage.output_tokens"), rec.Get("genai_tokens_output"))
	if !in.Exists() && e.API == "" {
		return e, ErrNotModelRequest
	}
	var err error
	if e.Start, _, err = rec.Get("start_time").Time(rec.Year); err != nil {
		return e, err
	}
	if e.Start.IsZero() {
		return e, rec.Get("start_time").Err("missing")
	}
	if e.PromptTokens, err = requiredInt(in); err != nil {
		return e, err
	}
	if e.OutputTokens, err = requiredInt(out); err != nil {
		return e, err
	}
	if e.CachedTokens, err = cachedOf(rec.Get("gen_ai.usage.cache_read.input_tokens"), rec.Get("genai_tokens_cached_input")); err != nil {
		return e, err
	}
	e.Model = firstString(rec.Get("gen_ai.request.model"), rec.Get("genai_model_name"), rec.Get("gen_ai.response.model"))
	if code, ok, err := rec.Get("response_code").Int(); err != nil {
		return e, err
	} else if ok {
		e.Status = code
	}
	if ms, ok, err := rec.Get("duration").Float(); err != nil {
		return e, err
	} else if ok {
		e.Latency = time.Duration(ms * float64(time.Millisecond))
	}
	return e, nil
}

// firstPresent is the first of vs present, the last one (absent) when none is.
func firstPresent(vs ...Value) Value {
	for _, v := range vs {
		if v.Exists() {
			return v
		}
	}
	return vs[len(vs)-1]
}
