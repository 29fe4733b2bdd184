package gatewaylog

import (
	"bytes"

	"github.com/llm-replay/replay/trace"
)

// litellmSchema reads LiteLLM's StandardLoggingPayload, one JSON object a line: what its
// proxy's logging callbacks (the generic API logger, the S3 and GCS bucket loggers, custom
// loggers) write for every call. Defined in litellm/types/utils.py (class
// StandardLoggingPayload; BerriAI/litellm) and documented in LiteLLM's proxy docs, "Logging":
// "What gets logged? StandardLoggingPayload". The members read:
//   - id, call_type (completion, acompletion, text_completion, atext_completion, embedding,
//     aembedding, responses, aresponses, anthropic_messages are model calls; image
//     generation, moderation, transcription, speech and tool calls such as call_mcp_tool
//     are skipped);
//   - startTime, endTime: epoch seconds as floats;
//   - prompt_tokens, completion_tokens; stream (later releases);
//   - model (the deployment's), model_group (what the client asked for, preferred);
//   - model_parameters: the request's optional params (max_tokens or max_completion_tokens,
//     temperature, top_p);
//   - response: the model response, whose usage carries prompt_tokens_details.cached_tokens
//     (OpenAI) or cache_read_input_tokens (Anthropic via LiteLLM's Usage) and
//     completion_tokens_details.reasoning_tokens (LiteLLM's Usage in OpenAI's shape, the
//     thinking part of completion_tokens), and may be held as a string;
//   - metadata: user_api_key_hash, user_api_key_user_id, user_api_key_team_id; end_user;
//     trace_id (calls of one request: fallbacks, retries);
//
// Prompt text (messages) is never read.
//
// The same format reads the proxy's spend-log table, LiteLLM_SpendLogs, exported as JSON lines
// (or a JSON array): a row is told from a StandardLoggingPayload by its request_id (the payload
// has id) and the want of model_parameters. The table is model LiteLLM_SpendLogs in
// schema.prisma (BerriAI/litellm 029f645f1c81cbd6c6c48fbc8490d91da937066f); its rows are
// written by get_logging_payload (litellm/proxy/spend_tracking/spend_tracking_utils.py @
// 00907c60692d7d14dc7ea814e645165d3b4d5fe9) as SpendLogsPayload and SpendLogsMetadata
// (litellm/proxy/_types.py @ 0bf90f0c206a923c997ac1ee780d1e4b02af811c). The columns read:
//   - startTime: a Prisma DateTime, so an ISO string in any export, not an epoch float: the
//     call's start, made UTC (_ensure_datetime_utc) before it is stored in a column without a
//     zone, so a zoneless export ("2025-01-24T09:20:46.847", psql's row_to_json) is UTC as
//     read, and the API's forms with Z or +00:00 read alike; milliseconds (timestamp(3));
//   - call_type, prompt_tokens, completion_tokens (the response's usage), model_group, model;
//   - metadata (Json, often exported as a string): usage_object (the whole usage, in later
//     releases) or additional_usage_values (the usage less its three counts, in all), each
//     with prompt_tokens_details.cached_tokens or cache_read_input_tokens as the cached
//     count and completion_tokens_details.reasoning_tokens as the reasoning count;
//     user_api_key_user_id beside the user column;
//   - proxy_server_request: the request body as a JSON string, only where the proxy stores
//     prompts (store_prompts_in_spend_logs; "{}" otherwise), for stream, the cap, temperature
//     and top_p; without it none of them is known;
//   - response: the model response, likewise only with stored prompts, its usage a last
//     source of cached and reasoning tokens;
//   - cache_hit: str() of a bool, "True" for a response LiteLLM served from its own cache (no
//     model ran: skipped);
//   - user, end_user, api_key (the key's hash): the key. session_id is not: where the client
//     sent no trace id it is a fresh uuid per row, which would share no prefix with anything.
//
// status (success or failure) is no HTTP status and is not read, as for the payload.
var litellmSchema = Schema{
	Format:  "litellm",
	Doc:     "LiteLLM StandardLoggingPayload (litellm/types/utils.py; proxy docs, Logging) and LiteLLM_SpendLogs rows (schema.prisma)",
	Reads:   "LiteLLM's logging payload and its spend-log table's rows",
	Example: `{"call_type":"acompletion","startTime":1737710446.847,"model":"hosted_vllm/Qwen/Qwen3-8B","prompt_tokens":1200,"completion_tokens":80}`,
	Time:    "startTime",
	Sniff: func(first []byte) bool {
		has := func(k string) bool { return bytes.Contains(first, []byte(`"`+k+`"`)) }
		if has("call_type") && has("startTime") && has("prompt_tokens") && has("model_parameters") {
			return true
		}
		// A spend-log row: request_id and spend beside the payload's call_type and startTime.
		return has("request_id") && has("call_type") && has("startTime") && has("spend") && has("completion_tokens")
	},
	Read: readLiteLLM,
}

// litellmModelCalls are the call types that are model requests, by the API they went to.
var litellmModelCalls = map[string]string{
	"completion": trace.APIChat, "acompletion": trace.APIChat,
	"text_completion": trace.APICompletions, "atext_completion": trace.APICompletions,
	"embedding": trace.APIEmbeddings, "aembedding": trace.APIEmbeddings,
	"responses": trace.APIResponses, "aresponses": trace.APIResponses,
	"anthropic_messages": trace.APIMessages,
}

func readLiteLLM(rec Record) (Entry, error) {
	if rec.Get("request_id").Exists() && !rec.Get("model_parameters").Exists() {
		return readSpendLog(rec)
	}
	e, err := litellmCall(rec)
	if err != nil {
		return e, err
	}
	if b, ok := rec.Get("stream").Bool(); ok {
		e.Stream = &b
	}
	e.Model = firstString(rec.Get("model_group"), rec.Get("model"))
	if err := samplingInto(&e, rec.Get("model_parameters")); err != nil {
		return e, err
	}
	usage := rec.Get("response", "usage")
	if e.CachedTokens, err = cachedOf(usage.Get("prompt_tokens_details", "cached_tokens"), usage.Get("cache_read_input_tokens")); err != nil {
		return e, err
	}
	if e.ReasoningTokens, err = usageReasoning(e.OutputTokens, usage); err != nil {
		return e, err
	}
	// status (success or failure) is no HTTP status, so it is not claimed as one: a failed
	// call is replayed from its counts like the others.
	e.Key = firstString(rec.Get("metadata", "user_api_key_user_id"), rec.Get("end_user"), rec.Get("metadata", "user_api_key_hash"))
	e.Headers = headersOf(rec.Get("metadata", "requester_custom_headers"))
	return e, nil
}

// litellmCall reads what both of LiteLLM's records hold alike: the call type (a model call or
// ErrNotModelRequest), the start and the two counts.
func litellmCall(rec Record) (Entry, error) {
	e := NewEntry()
	ct, _ := rec.Get("call_type").String()
	api, ok := litellmModelCalls[ct]
	if !ok {
		return e, ErrNotModelRequest
	}
	e.API = api
	var err error
	if e.Start, _, err = rec.Get("startTime").Time(rec.Year); err != nil {
		return e, err
	}
	if e.Start.IsZero() {
		return e, rec.Get("startTime").Err("missing")
	}
	if e.PromptTokens, err = requiredInt(rec.Get("prompt_tokens")); err != nil {
		return e, err
	}
	if e.OutputTokens, err = requiredInt(rec.Get("completion_tokens")); err != nil {
		return e, err
	}
	return e, nil
}

// readSpendLog reads a LiteLLM_SpendLogs row (see litellmSchema).
func readSpendLog(rec Record) (Entry, error) {
	if hit, _ := rec.Get("cache_hit").Bool(); hit {
		return NewEntry(), ErrNotModelRequest // answered from LiteLLM's cache: no engine saw it
	}
	e, err := litellmCall(rec)
	if err != nil {
		return e, err
	}
	e.Model = firstString(rec.Get("model_group"), rec.Get("model"))
	meta := rec.Get("metadata")
	var cached, reasoning []Value
	for _, usage := range []Value{meta.Get("usage_object"), meta.Get("additional_usage_values"), rec.Get("response", "usage")} {
		cached = append(cached, usage.Get("prompt_tokens_details", "cached_tokens"), usage.Get("cache_read_input_tokens"))
		reasoning = append(reasoning, usage.Get("completion_tokens_details", "reasoning_tokens"))
	}
	if e.CachedTokens, err = cachedOf(cached...); err != nil {
		return e, err
	}
	if e.ReasoningTokens, err = reasoningOf(e.OutputTokens, reasoning...); err != nil {
		return e, err
	}
	// The body is "{}" unless the proxy stores prompts: then nothing below is set.
	body := rec.Get("proxy_server_request")
	if b, ok := body.Get("stream").Bool(); ok {
		e.Stream = &b
	}
	if err := samplingInto(&e, body); err != nil {
		return e, err
	}
	e.Key = firstString(rec.Get("user"), meta.Get("user_api_key_user_id"), rec.Get("end_user"), rec.Get("api_key"))
	e.Headers = headersOf(meta.Get("requester_custom_headers"))
	return e, nil
}
