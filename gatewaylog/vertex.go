package gatewaylog

import (
	"bytes"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// vertexSchema reads Vertex AI's request-response logging rows, exported from their BigQuery
// table as JSON lines (bq extract's NEWLINE_DELIMITED_JSON, or a query's rows as JSON). The
// table is documented in the Vertex AI generative AI docs, "Log requests and responses"
// (multimodal/request-response-logging; now "Log and share requests and responses"), section
// "Logging table schema":
//   - endpoint, deployed_model_id (a tuned model's endpoint), request_id (NUMERIC);
//   - logging_time (TIMESTAMP): "the time that logging is performed. This is roughly the time
//     that the response is returned", so an end;
//   - model (the model resource name), model_version ("often default for Gemini models");
//   - api_method: generateContent, streamGenerateContent, rawPredict, streamRawPredict;
//   - full_request, full_response (JSON): the GenerateContentRequest and GenerateContentResponse;
//     request_payload, response_payload (STRING): the same for partner models and the older
//     endpoint log, a JSON document held in a string;
//   - metadata (JSON, "contains the request latency"), otel_log.
//
// From the GenerateContentRequest: generationConfig.maxOutputTokens, temperature, topP, and
// cachedContent (the explicit cache it read, the key for prefix sharing). From the
// GenerateContentResponse (Vertex AI API reference): createTime ("Timestamp when the request is
// made to the server"), the arrival when logged; modelVersion; usageMetadata.promptTokenCount
// (which includes the cached part), candidatesTokenCount plus thoughtsTokenCount (both are
// generated: Gemini counts its thoughts outside the candidates), cachedContentTokenCount; the
// thoughts are the reasoning count (Vertex AI API reference, GenerateContentResponse,
// UsageMetadata,
// https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/GenerateContentResponse#UsageMetadata).
// Counts are protobuf JSON, which leaves zeros out: an absent candidates, thoughts or cached
// count is 0. A rawPredict row of an Anthropic model is read as a Messages request
// (usage.input_tokens with the cache reads and writes, max_tokens; no reasoning count).
//
// Unknowable, said where it matters: without createTime the start is unknown; the metadata's
// latency has no documented key or unit, so the arrival is then logging_time, late by the
// request's own latency. The stream flag is known only from api_method (the stream* methods);
// rows without it (the older schema) leave it unknown. How a streamed response is logged (one
// aggregate or the chunks) is not documented; an array of chunks is read from its last chunk
// that carries usage. Rows with another api_method, or none and no usage (an endpoint of a
// model that is no LLM, in the older endpoint log), are skipped. Which TIMESTAMP text a tool
// writes differs (RFC 3339, "2025-01-24 09:20:46.847371 UTC", epoch seconds in E notation);
// all are read (timestamp.go).
var vertexSchema = Schema{
	Format:  "vertex",
	Doc:     "Vertex AI request-response logging BigQuery rows (Log requests and responses, Logging table schema), as JSON lines",
	Reads:   "Vertex AI's request-response logging rows (BigQuery, as JSON lines)",
	Example: `{"logging_time":"2025-01-24 09:20:48.102 UTC","model":"gemini-2.0-flash-001","full_response":{"usageMetadata":{"promptTokenCount":700,"candidatesTokenCount":64}}}`,
	Time:    "logging_time",
	Sniff: func(first []byte) bool {
		has := func(k string) bool { return bytes.Contains(first, []byte(`"`+k+`"`)) }
		return has("logging_time") && has("request_id") && (has("full_request") || has("request_payload"))
	},
	Read: readVertex,
}

// vertexMethods are the api_method values of model calls, by whether they stream.
var vertexMethods = map[string]bool{
	"generatecontent": false, "streamgeneratecontent": true,
	"rawpredict": false, "streamrawpredict": true,
}

func readVertex(rec Record) (Entry, error) {
	e := NewEntry()
	method, _ := rec.Get("api_method").String()
	stream, generate := vertexMethods[strings.ToLower(method)]
	if method != "" && !generate {
		return e, ErrNotModelRequest
	}
	req := firstElement(firstPresent(rec.Get("full_request"), rec.Get("request_payload")))
	resp := lastWithUsage(firstPresent(rec.Get("full_response"), rec.Get("response_payload")))
	gemini := firstPresent(resp.Get("usageMetadata"), resp.Get("usage_metadata"))
	anthropic := resp.Get("usage")
	if !gemini.Exists() && !anthropic.Exists() {
		if generate {
			return e, gemini.Err("missing (nor usage): a model call logs its usage")
		}
		return e, ErrNotModelRequest
	}
	var err error
	if e.End, _, err = rec.Get("logging_time").Time(rec.Year); err != nil {
		return e, err
	}
	if e.End.IsZero() {
		return e, rec.Get("logging_time").Err("missing")
	}
	if e.Start, _, err = firstPresent(resp.Get("createTime"), resp.Get("create_time")).Time(rec.Year); err != nil {
		return e, err
	}
	if generate {
		e.Stream = &stream
	}
	model, _ := rec.Get("model").String()
	if i := strings.LastIndex(model, "/"); i >= 0 {
		model = model[i+1:]
	}
	e.Model = firstString(Value{v: model, ok: model != ""}, resp.Get("modelVersion"), resp.Get("model"), rec.Get("deployed_model_id"))
	if gemini.Exists() {
		err = vertexGemini(&e, gemini, req)
	} else {
		err = vertexAnthropic(&e, anthropic, req)
	}
	return e, err
}

// vertexGemini reads a GenerateContent call's usage and generation config, in the protobuf
// JSON's camelCase or its snake_case field names.
func vertexGemini(e *Entry, usage, req Value) error {
	e.API = trace.APIChat // generateContent takes a conversation's contents
	field := func(camel, snake string) Value { return firstPresent(usage.Get(camel), usage.Get(snake)) }
	var err error
	if e.PromptTokens, err = requiredInt(field("promptTokenCount", "prompt_token_count")); err != nil {
		return err
	}
	var out [2]int // the candidates and the thoughts; 0 when absent (protobuf JSON leaves zeros out)
	for i, k := range [][2]string{{"candidatesTokenCount", "candidates_token_count"}, {"thoughtsTokenCount", "thoughts_token_count"}} {
		if out[i], _, err = field(k[0], k[1]).Int(); err != nil {
			return err
		}
	}
	e.OutputTokens, e.ReasoningTokens = out[0]+out[1], out[1]
	cached, _, err := field("cachedContentTokenCount", "cached_content_token_count").Int()
	if err != nil {
		return err
	}
	e.CachedTokens = cached
	if gc := req.Get("generationConfig"); gc.Exists() {
		if err := samplingFrom(e, gc, "maxOutputTokens", "temperature", "topP"); err != nil {
			return err
		}
	} else if err := samplingFrom(e, req.Get("generation_config"), "max_output_tokens", "temperature", "top_p"); err != nil {
		return err
	}
	e.Key = firstString(req.Get("cachedContent"), req.Get("cached_content"))
	imgs, err := geminiImages(req) // images.go
	if err != nil {
		return err
	}
	logged, err := modalityTokens(usage)
	if err != nil {
		return err
	}
	return countImages(e, imgs, logged, req)
}

// vertexAnthropic reads a rawPredict call of an Anthropic model: its Messages usage (prompt
// tokens are the uncached input plus cache reads and writes) and its body's max_tokens.
func vertexAnthropic(e *Entry, usage, req Value) error {
	e.API = trace.APIMessages
	var err error
	if e.PromptTokens, err = requiredInt(usage.Get("input_tokens")); err != nil {
		return err
	}
	if e.OutputTokens, err = requiredInt(usage.Get("output_tokens")); err != nil {
		return err
	}
	read, okRead, err := usage.Get("cache_read_input_tokens").Int()
	if err != nil {
		return err
	}
	write, _, err := usage.Get("cache_creation_input_tokens").Int()
	if err != nil {
		return err
	}
	e.PromptTokens += read + write
	if okRead {
		e.CachedTokens = read
	}
	imgs, err := anthropicImages(req) // images.go
	if err != nil {
		return err
	}
	if err := countImages(e, imgs, -1, req); err != nil {
		return err
	}
	return samplingInto(e, req)
}

// firstElement is v, or its first element when it is an array (the older endpoint log's
// payloads are repeated strings).
func firstElement(v Value) Value {
	if v.Len() > 0 {
		return v.Index(0)
	}
	return v
}

// lastWithUsage is v, or, when it is an array (a stream's chunks), its last element that
// carries usage, else its last element.
func lastWithUsage(v Value) Value {
	n := v.Len()
	if n == 0 {
		return v
	}
	for i := n - 1; i >= 0; i-- {
		el := v.Index(i)
		if el.Get("usageMetadata").Exists() || el.Get("usage_metadata").Exists() || el.Get("usage").Exists() {
			return el
		}
	}
	return v.Index(n - 1)
}
