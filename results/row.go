package results

import "strings"

// Row is one request as sent and answered: exactly one per request, written when it completes.
// Offsets are nanoseconds from the run's start on a monotonic clock; a zero offset for first or
// last token means the request produced none.
type Row struct {
	RequestID string `parquet:"request_id"`
	// Warmup rows are throwaway requests sent before the measured run; summaries skip them.
	Warmup    bool   `parquet:"warmup"`
	SessionID string `parquet:"session_id,optional"`
	Turn      int32  `parquet:"turn,delta"`
	// OriginalTimestampNS is the record's timestamp in the source trace (from its origin).
	OriginalTimestampNS int64 `parquet:"original_timestamp_ns,delta"`
	// ScheduledNS is when the request was due to leave (trace offset / speed).
	ScheduledNS int64 `parquet:"scheduled_ns,delta"`
	// SentNS is when it was handed to the HTTP client; latencies (TTFT, e2e) count from it,
	// so a connect or TLS handshake on the way is in them.
	SentNS int64 `parquet:"sent_ns,delta"`
	// WrittenNS is when the request's last byte was handed to the kernel (0 when it never
	// was, and in older files). Send lateness counts to it (SendNS), as the server's
	// own clock would: WrittenNS - ScheduledNS - QueueWaitNS.
	WrittenNS int64 `parquet:"written_ns,delta"`
	// QueueWaitNS is time spent waiting for a slot under --max-concurrency (included in SentNS).
	QueueWaitNS int64 `parquet:"queue_wait_ns,delta"`
	// ClientBacklogNS is time the request was held because the client was at its own limit
	// (file descriptors, ports), not the endpoint's: included in SentNS, and a sign that the
	// figures measure the load generator.
	ClientBacklogNS int64 `parquet:"client_backlog_ns,delta"`
	// FirstTokenNS and LastTokenNS are arrival offsets of the first and last content chunks.
	FirstTokenNS int64 `parquet:"first_token_ns,delta"`
	LastTokenNS  int64 `parquet:"last_token_ns,delta"`
	// DoneNS is when the response ended (stream closed, error or timeout).
	DoneNS int64 `parquet:"done_ns,delta"`
	// ChunkNS holds the arrival offset of every content chunk, in order.
	ChunkNS []int64 `parquet:"chunk_ns,list" parquet-element:",delta"`
	// Target counts the request was built for.
	TargetPromptTokens int32 `parquet:"target_prompt_tokens,delta"`
	TargetOutputTokens int32 `parquet:"target_output_tokens,delta"`
	// Server-reported usage; -1 when the server reported none.
	PromptTokens     int32 `parquet:"prompt_tokens,delta"`
	CompletionTokens int32 `parquet:"completion_tokens,delta"`
	CachedTokens     int32 `parquet:"cached_tokens,delta"`
	HTTPStatus       int32 `parquet:"http_status,delta"`
	// ErrorClass is empty on success, else one of connect, tls, http_429, http_4xx, http_5xx,
	// stream_broken, bad_stream, short, timeout, canceled, client.
	ErrorClass   string `parquet:"error_class,optional,dict"`
	ErrorMessage string `parquet:"error_message,optional"`
	Endpoint     string `parquet:"endpoint,dict"`
	// RetryAfterNS is the server's Retry-After on a 429 or 503, 0 when it gave none.
	RetryAfterNS int64 `parquet:"retry_after_ns,delta"`
	// Attempt numbers the tries of one request under --retries, from 0. Every attempt has its
	// row; Retried marks the ones that were tried again, so a request's outcome is its one row
	// with Retried false.
	Attempt int32 `parquet:"attempt,delta"`
	Retried bool  `parquet:"retried"`
	// Prompt is the text sent, only when the user asked for it (--keep-prompts).
	Prompt string `parquet:"prompt,optional"`
	// CancelledAsLogged marks a request the replay cancelled on purpose, as its client did in
	// the log (after the logged duration from its send): not a failure, so ErrorClass is
	// empty, and the summary counts it apart from ok and failed.
	CancelledAsLogged bool `parquet:"cancelled_as_logged"`
	// Unforced marks a request sent without the output-forcing fields of --extra-body
	// (ignore_eos, min_tokens) because its logged answer did not run to its length or was
	// constrained (tools, response_format): its output length is the engine's, and fidelity
	// leaves it out of output-token exactness.
	Unforced bool `parquet:"unforced"`
	// Line is the request's line (or row) in the source trace or request log, 0 when unknown,
	// so a row joins the log it came from.
	Line int64 `parquet:"line,delta"`
	// Population is how the request was sent: PopulationStream or PopulationNoStream, a slash,
	// then KindTools, KindJSON or KindPlain (e.g. "stream/plain"); empty in older files.
	Population string `parquet:"population,optional,dict"`
	// API is the API the request was sent to (trace's API names: chat, completions,
	// responses, messages, embeddings); empty in older files.
	API string `parquet:"api,optional,dict"`
	// TraceID is the W3C trace id the request's traceparent header carried (32 lowercase hex
	// digits), which the server's and replay's exported spans of it share; empty under
	// --trace-context off and in older files. Unique per row, so plain, not dictionary, encoded.
	TraceID string `parquet:"trace_id,optional"`
	// FinishReason is why the answer ended, in chat's words whatever the API ("stop",
	// "length", "tool_calls", ...); empty when it gave none and in older files.
	FinishReason string `parquet:"finish_reason,optional,dict"`
	// Model is the model name the request was sent with (its --model-map target; the
	// adapter's name when it names one); empty when every request went to --model, and in
	// older files.
	Model string `parquet:"model,optional,dict"`
	// SLOClass is the request's class under --slo-class-by (its logged model, API or a
	// header's value), which the summary judges by that class's limits; empty without it.
	SLOClass string `parquet:"slo_class,optional,dict"`
	// FirstReasoningNS and FirstAnswerNS are the arrivals of the first chunk of thinking and
	// of the first chunk of answer (0 when none came); FirstTokenNS stays the first of either.
	// Time to first answer token (TTFAT) counts from SentNS to FirstAnswerNS.
	FirstReasoningNS int64 `parquet:"first_reasoning_ns,delta"`
	FirstAnswerNS    int64 `parquet:"first_answer_ns,delta"`
	// ReasoningTokens are the output tokens spent thinking (0 when nothing was thought): the
	// server's usage where it breaks them out, else the thinking chunks counted (a server
	// streams a token a chunk). AnswerTokens are the rest: the usage's completion tokens less
	// the reasoning ones where the server reports usage, else the answer chunks counted.
	ReasoningTokens int32 `parquet:"reasoning_tokens,delta"`
	AnswerTokens    int32 `parquet:"answer_tokens,delta"`
	// TargetReasoningTokens is the thinking part of the logged output (part of
	// TargetOutputTokens), -1 when the log did not say.
	TargetReasoningTokens int32 `parquet:"target_reasoning_tokens,delta"`
	// Images and AudioClips are the image and audio parts the request carried (0 for text
	// alone), MediaTokens their prompt tokens by the rule its prompt was built with (part of
	// TargetPromptTokens), and MediaBytes the bytes of the media files inlined in its body
	// (decoded, before base64; media sent as URLs are fetched, not carried).
	Images      int32 `parquet:"images,delta"`
	AudioClips  int32 `parquet:"audio_clips,delta"`
	MediaTokens int32 `parquet:"media_tokens,delta"`
	MediaBytes  int64 `parquet:"media_bytes,delta"`
	// ServerMediaTokens is the media's prompt tokens as the server counted them: its usage
	// less the text replay built (TargetPromptTokens less MediaTokens, the text as the engine
	// counts it), which is the media's own count wherever the text is exact (the tokenize
	// cross-check and the image probe's twins say whether it is); -1 when the server reported
	// no prompt count, 0 for a request without media.
	ServerMediaTokens int32 `parquet:"server_media_tokens,delta"`
}

// SendNS is when the request left as its server would see it: WrittenNS, or SentNS when the
// write was not seen (a failed connect, an older file).
func (r *Row) SendNS() int64 {
	if r.WrittenNS > 0 {
		return r.WrittenNS
	}
	return r.SentNS
}

// APIs are the names Row.API takes, in the order summaries show them: trace.APIs (results
// must not import trace, which links Parquet; runner's tests hold the two lists equal).
var APIs = []string{"chat", "completions", "responses", "messages", "embeddings"}

// Population parts: whether the answer was streamed, and what constrained it.
const (
	PopulationStream   = "stream"
	PopulationNoStream = "nostream"
	KindTools          = "tools"
	KindJSON           = "json"
	KindPlain          = "plain"
)

// Population names the population of a request sent streamed or not, of kind KindTools,
// KindJSON or KindPlain.
func Population(streamed bool, kind string) string {
	if streamed {
		return PopulationStream + "/" + kind
	}
	return PopulationNoStream + "/" + kind
}

// Streamed reports whether the answer was streamed: every row but a "nostream" population's
// (rows of older files, without a population, were all streamed).
func (r *Row) Streamed() bool { return !strings.HasPrefix(r.Population, PopulationNoStream+"/") }

// ClassClient is the error class of a request that failed on the client machine's own limits
// (file descriptors, ports, memory): not the endpoint's failure.
const ClassClient = "client"

// TTFATNS is the time to the first answer token, from the send; 0 when no answer came.
func (r *Row) TTFATNS() int64 {
	if r.FirstAnswerNS == 0 {
		return 0
	}
	return r.FirstAnswerNS - r.SentNS
}

// Final reports whether the row is the request's outcome: not an attempt that was retried.
func (r *Row) Final() bool { return !r.Retried }

// OK reports whether the request succeeded.
func (r *Row) OK() bool { return r.ErrorClass == "" }

// Shift moves every offset of the row d nanoseconds later (a resumed run's rows onto the
// killed run's time line); the offsets whose 0 means "none" (written, first and last token)
// stay 0. The row's ChunkNS is replaced, not written through: the slice may be shared with an
// output that kept the row.
func (r *Row) Shift(d int64) {
	if d == 0 {
		return
	}
	r.ScheduledNS += d
	r.SentNS += d
	r.DoneNS += d
	for _, p := range []*int64{&r.WrittenNS, &r.FirstTokenNS, &r.LastTokenNS, &r.FirstReasoningNS, &r.FirstAnswerNS} {
		if *p != 0 {
			*p += d
		}
	}
	if len(r.ChunkNS) > 0 {
		c := make([]int64, len(r.ChunkNS))
		for i, v := range r.ChunkNS {
			c[i] = v + d
		}
		r.ChunkNS = c
	}
}
