package gatewaylog

import (
	"bytes"
	"slices"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// langfuseSchema reads Langfuse's observation exports as JSON lines: the blob-storage export of
// the observations table (and of the events table, observations_v2), and the UI's batch export
// of observations, which write the same snake_case rows. The export's columns are listed in
// packages/shared/src/domain/observation-field-groups.ts (LEGACY_OBSERVATION_EXPORT_FIELDS) and,
// for the events table, EVENTS_FIELDS in
// packages/shared/src/server/queries/clickhouse-sql/event-query-builder.ts (langfuse/langfuse
// 62751446149b702b419a9292ddfc2280cdf74b8c). The members read:
//   - type: GENERATION and EMBEDDING are model calls; SPAN, EVENT, AGENT, TOOL, CHAIN,
//     RETRIEVER, EVALUATOR and GUARDRAIL observations are skipped;
//   - start_time: ClickHouse's DateTime64 as JSON writes it ("2025-01-24 09:20:46.847", UTC)
//     or RFC 3339; it is in the export's core group, always there;
//   - provided_model_name (what the application named);
//   - model_parameters: a JSON object held in a string (max_tokens, max_completion_tokens,
//     temperature, top_p, stream), values numbers or strings; Langfuse's OpenAI integration
//     logs max_tokens "Infinity" when none was set (langfuse-python langfuse/openai.py and
//     langfuse/_utils/serializer.py at c3c6a09e7b635730cc9c6eb661687cb7bc294532), read as no cap;
//   - usage_details: a map of counts (ClickHouse quotes 64-bit numbers, so they may be
//     strings);
//   - session_id and user_id (events table), userId (the batch export's trace join), trace_id.
//
// Cached tokens: Langfuse's usage_details.input EXCLUDES the cached prompt tokens. Its
// ingestion maps OpenAI's usage so that input = prompt_tokens less every
// prompt_tokens_details entry, each kept as input_<name> (input_cached_tokens, input_audio_tokens:
// OpenAICompletionUsageSchema and OpenAIResponseUsageSchema in
// packages/shared/src/server/ingestion/types.ts), and its OpenTelemetry ingestion subtracts
// input_cached_tokens, input_cache_read and input_cache_creation from input the same way
// (OtelIngestionProcessor.ts, extractGenericGenAiUsageDetails); output likewise excludes
// output_reasoning_tokens (completion_tokens_details.reasoning_tokens or
// output_tokens_details.reasoning_tokens, kept as output_<name> and subtracted from output:
// OpenAICompletionUsageSchema and OpenAIResponseUsageSchema in ingestion/types.ts at
// langfuse/langfuse 0391b9a26333d7774363bb15a44b169435c7ee51), which is read as the reasoning
// count. Langfuse's own "Input Tokens" is therefore the sum of every usage key containing
// "input" (eventsTable.ts and features/query/dataModel.ts:
// arraySum(mapFilter(positionCaseInsensitive(key, 'input') > 0))), and "Output Tokens" the
// sum of those containing "output"; the prompt replayed is that sum, the whole prompt.
var langfuseSchema = Schema{
	Format:  "langfuse",
	Doc:     "Langfuse observations export (blob storage / batch export rows; observation-field-groups.ts, ingestion/types.ts)",
	Reads:   "Langfuse's observations export (GENERATION rows)",
	Example: `{"type":"GENERATION","start_time":"2025-01-24 09:20:46.847","provided_model_name":"gpt-4o-mini","usage_details":{"input":"176","output":"80"}}`,
	Time:    "start_time",
	Sniff: func(first []byte) bool {
		has := func(k string) bool { return bytes.Contains(first, []byte(`"`+k+`"`)) }
		return has("trace_id") && has("start_time") && has("type") && (has("usage_details") || has("provided_model_name"))
	},
	Read: readLangfuse,
}

// langfuseModelCalls are the observation types that are model requests, by API ("" for a
// generation: Langfuse does not log the endpoint).
var langfuseModelCalls = map[string]string{"GENERATION": "", "EMBEDDING": trace.APIEmbeddings}

// langfuseCachedKeys name the cache-read count, as Langfuse's ingestion writes it
// (input_cached_tokens from OpenAI's details and OpenTelemetry, input_cache_read from
// Bedrock's metadata) or as an SDK may have sent Anthropic's name unmapped.
var langfuseCachedKeys = []string{"input_cached_tokens", "input_cache_read", "cache_read_input_tokens"}

func readLangfuse(rec Record) (Entry, error) {
	e := NewEntry()
	typ, _ := rec.Get("type").String()
	api, ok := langfuseModelCalls[typ]
	if !ok {
		return e, ErrNotModelRequest
	}
	e.API = api
	var err error
	if e.Start, _, err = rec.Get("start_time").Time(rec.Year); err != nil {
		return e, err
	}
	if e.Start.IsZero() {
		return e, rec.Get("start_time").Err("missing")
	}
	usage := rec.Get("usage_details")
	in, nIn, out, nOut, err := langfuseUsage(usage)
	if err != nil {
		return e, err
	}
	if nIn == 0 {
		return e, usage.Get("input").Err("missing: no input count in usage_details")
	}
	if nOut == 0 && typ == "GENERATION" {
		return e, usage.Get("output").Err("missing: no output count in usage_details")
	}
	e.PromptTokens, e.OutputTokens = in, out
	var cached []Value
	for _, k := range langfuseCachedKeys {
		cached = append(cached, usage.Get(k))
	}
	if e.CachedTokens, err = cachedOf(cached...); err != nil {
		return e, err
	}
	if e.ReasoningTokens, err = reasoningOf(e.OutputTokens, usage.Get("output_reasoning_tokens")); err != nil {
		return e, err
	}
	e.Model = firstString(rec.Get("provided_model_name"), rec.Get("model"))
	params := rec.Get("model_parameters")
	if err := langfuseSampling(&e, params); err != nil {
		return e, err
	}
	if b, ok := params.Get("stream").Bool(); ok {
		e.Stream = &b
	}
	// A trace is one application run (an agent's steps), whose calls share their system prompt
	// even without a session, so it is the key of last resort.
	e.Key = firstString(rec.Get("session_id"), rec.Get("user_id"), rec.Get("userId"), rec.Get("trace_id"))
	return e, nil
}

// langfuseUsage sums usage_details as Langfuse's own input and output token metrics do: every
// key containing "input", every key containing "output" (case-insensitive), with how many keys
// each sum has. Keys are taken in order so that an error names the same key every time.
func langfuseUsage(usage Value) (in, nIn, out, nOut int, err error) {
	keys := usage.Keys()
	slices.Sort(keys)
	for _, k := range keys {
		lk := strings.ToLower(k)
		isIn, isOut := strings.Contains(lk, "input"), strings.Contains(lk, "output")
		if !isIn && !isOut {
			continue
		}
		v := usage.Get(k)
		n, ok, err := v.Int()
		if err != nil {
			return 0, 0, 0, 0, err
		}
		if !ok {
			continue
		}
		if isIn {
			in, nIn = in+n, nIn+1
		} else {
			out, nOut = out+n, nOut+1
		}
		if in > 1<<40 || out > 1<<40 {
			return 0, 0, 0, 0, v.Err("token counts sum out of range")
		}
	}
	return in, nIn, out, nOut, nil
}

// langfuseSampling reads the cap and sampling from model_parameters, a cap of "Infinity" (no
// cap set, as the OpenAI integration logs it) read as none.
func langfuseSampling(e *Entry, params Value) error {
	for _, k := range []string{"max_tokens", "max_completion_tokens", "max_output_tokens"} {
		v := params.Get(k)
		if !v.Exists() || unbounded(v) {
			continue
		}
		n, _, err := v.Int()
		if err != nil {
			return err
		}
		e.MaxTokens = &n
		break
	}
	return temperatureTopP(e, params, "temperature", "top_p")
}

// unbounded reports whether a value is an infinity held as a string ("Infinity", "inf").
func unbounded(v Value) bool {
	s, ok := v.String()
	if !ok {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "+"))) {
	case "infinity", "inf":
		return true
	}
	return false
}
