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
//     (OpenAI) or cache_read_input_tokens (Anthropic via LiteLLM's Usage), and may be held as
//     a string;
//   - metadata: user_api_key_hash, user_api_key_user_id, user_api_key_team_id; end_user;
//     trace_id (calls of one request: fallbacks, retries);
//
// Prompt text (messages) is never read.
var litellmSchema = Schema{
	Format: "litellm",
	Doc:    "LiteLLM StandardLoggingPayload (litellm/types/utils.py; proxy docs, Logging)",
	Sniff: func(first []byte) bool {
		has := func(k string) bool { return bytes.Contains(first, []byte(`"`+k+`"`)) }
		return has("call_type") && has("startTime") && has("prompt_tokens") && has("model_parameters")
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
	// status (success or failure) is no HTTP status, so it is not claimed as one: a failed
	// call is replayed from its counts like the others.
	e.Key = firstString(rec.Get("metadata", "user_api_key_user_id"), rec.Get("end_user"), rec.Get("metadata", "user_api_key_hash"))
	return e, nil
}
