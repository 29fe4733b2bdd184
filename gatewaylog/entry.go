package gatewaylog

import (
	"errors"
	"time"

	"github.com/llm-replay/replay/trace"
)

// Entry is what one log record says of one model request, whatever the source. A field the
// record does not hold is left zero (nil for the pointers, -1 for CachedTokens and
// ReasoningTokens).
type Entry struct {
	// Start is when the request arrived. Sources that log the end instead set End and
	// Latency; Arrival resolves them.
	Start, End time.Time
	Latency    time.Duration
	// PromptTokens and OutputTokens are the logged usage; CachedTokens the prompt tokens the
	// source says were read from the prefix cache (-1: the record does not say).
	PromptTokens, OutputTokens, CachedTokens int
	// ReasoningTokens are the output tokens the source says the model spent thinking, part
	// of OutputTokens (-1: the record does not say).
	ReasoningTokens int
	Model           string
	// API is the trace API the request was made to (trace.APIChat, ...), "" when unknown.
	API         string
	Stream      *bool
	MaxTokens   *int
	Temperature *float64
	TopP        *float64
	// Key groups requests that may share a prompt prefix: the session, else the user, else
	// the API key or team the source logs (already pseudonymous in most sources; hashed
	// before it reaches a record).
	Key string
	// Status is the logged HTTP status, 0 when not logged.
	Status int
	// N, Seed and Stop are the sampling's choices, seed and stop strings where the source logs
	// them (vLLM's SamplingParams); N 0 and Seed nil when not logged. FinishReason is the first
	// choice's, "" when not logged.
	N            int
	Seed         *int64
	Stop         []string
	FinishReason string
	// Media are the images of the logged request body, where the source logs the body
	// (images.go), each counted in PromptTokens by the logged model's rule.
	Media []trace.MediaPart
	// Headers are the request headers the record holds (headers.go), credentials dropped.
	Headers []trace.Header
	// OutputUnknown says the log holds no output count for the request (vLLM's log without
	// --enable-log-outputs): OutputTokens is 0 for want of one, not a logged 0.
	OutputUnknown bool

	// ID is the request's id in the log, where a source writes one request over several
	// lines (vLLM's received line, its DEBUG details line, its generated-response lines): the
	// lines of one ID are folded into one Entry (Schema.Merge). Part says which kind of line
	// this Entry came from.
	ID   string
	Part Part
	// vllm is what a vLLM request's lines have said so far, until its Finish.
	vllm *vllmState
}

// Part is how a record stands to the request it describes, for sources that log one request
// over several records joined by Entry.ID.
type Part int

const (
	// Whole is the request's own record, which the others fold into (the default).
	Whole Part = iota
	// Leads is a record written before the request's own (vLLM's DEBUG "Request ... details"
	// line): held, and folded into the next Whole record of its ID.
	Leads
	// Follows is a record written after it (vLLM's "Generated response" lines): folded into
	// the latest Whole record of its ID. One whose request is not in the log (it arrived
	// before the log began) is left out, uncounted.
	Follows
)

// ErrNotModelRequest is what a Schema's Read returns for a record that is no model request
// (a gateway's MCP or tool call, an embeddings-free admin call, a health check): skipped and
// counted, never an error.
var ErrNotModelRequest = errors.New("not a model request")

// ErrCountedElsewhere is what Read returns for a record that describes part of a request
// another record of the log counts (SGLang's request.received line beside its
// request.finished one): left out, and counted neither as skipped nor as bad.
var ErrCountedElsewhere = errors.New("part of a request another record counts")

// ErrNotRecord is what Read returns for a line of a server log that is about no request at
// all (a startup message, the engine's periodic stats): left out, and counted neither as
// skipped nor as bad, since a server log is mostly such lines.
var ErrNotRecord = errors.New("not a request record")

// NewEntry is an Entry with nothing known, CachedTokens and ReasoningTokens -1.
func NewEntry() Entry { return Entry{CachedTokens: -1, ReasoningTokens: -1} }

// Arrival is the request's arrival: Start, or End minus Latency.
func (e Entry) Arrival() (time.Time, error) {
	switch {
	case !e.Start.IsZero():
		return e.Start, nil
	case !e.End.IsZero():
		return e.End.Add(-e.Latency), nil
	}
	return time.Time{}, errors.New("no start time, and no end time to subtract the latency from")
}
