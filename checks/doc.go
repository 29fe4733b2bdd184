// Package checks probes one OpenAI-compatible endpoint for the behaviours a migration depends on,
// each with a few small requests built with go-openai's request types: streaming arrives
// incrementally, a forced tool call names the declared function with arguments that validate
// against its parameters, a response_format json_schema answer validates (both judged by a JSON
// Schema library, not by hand), stop strings are honoured, max_tokens is honoured, and the
// sampling fields are accepted; and, from a run's answers, whether every 429 and 503 carried
// Retry-After. Each check is a Result (package checkresult's, so that what reads Results need
// not link these probes): pass and fail counts, what was seen, and a few examples quoting the
// server's own bytes.
//
// It sends only its probes, one at a time, each bounded by a timeout, and never the run's
// traffic; it imports no other stage of the pipeline. The runner gives it an endpoint (Config)
// and, for Overload, each answer's status and Retry-After (Answer); the terminal and the report
// show Results with checkresult's WriteText and HTML, side by side for several endpoints.
// RunLevel picks the probes of `replay run --checks` (basic: what every server must do with a
// plain request; all: tool calls and structured output too); LevelFor is the level a run's
// auto means, and TimeoutWithin bounds each probe by the run's own timeouts.
package checks
