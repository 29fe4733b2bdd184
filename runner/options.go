package runner

import (
	"errors"
	"fmt"
	"io"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/trace"
)

// options.go decides how each request is sent under --options and --body: with its logged
// options or none, forced to its length or not, cancelled as its client cancelled it, and
// in which population its row is counted.

// The values of Config.Options and Config.Body.
const (
	// OptionsLogged sends each request with its own logged options (the default when the
	// trace's records carry them); OptionsNone sends none of them, every request streamed
	// with the server's default sampling (the default otherwise).
	OptionsLogged = "logged"
	OptionsNone   = "none"
	// BodyVerbatim sends each record's logged body byte for byte, its model replaced.
	BodyVerbatim = "verbatim"
)

// resolveOptions turns Config.Options and Config.Body into whether the logged options are
// sent: "" means logged when any record carries options. --body verbatim sends the logged
// body, options and all, so it needs every record's body and cannot go with --options none.
func resolveOptions(cfg Config, recs []trace.Record) (bool, error) {
	logged := cfg.Options == OptionsLogged
	switch cfg.Options {
	case "":
		for i := range recs {
			if recs[i].Options != nil {
				logged = true
				break
			}
		}
	case OptionsLogged, OptionsNone:
	default:
		return false, fmt.Errorf("--options %q: want logged or none", cfg.Options)
	}
	switch cfg.Body {
	case "":
		return logged, nil
	case BodyVerbatim:
	default:
		return false, fmt.Errorf("--body %q: want verbatim (or leave it out)", cfg.Body)
	}
	if cfg.Options == OptionsNone {
		return false, errors.New("--body verbatim sends the logged body, options and all: it cannot go with --options none")
	}
	for i := range recs {
		if o := recs[i].Options; o == nil || len(o.Body) == 0 {
			return false, fmt.Errorf("%s: --body verbatim: the record has no logged body (ingest the request log with --keep-text to keep bodies)", recordAt(recs[i], i))
		}
	}
	return true, nil
}

// recordAt names a record for a message: its file and line, or its place in the window.
func recordAt(r trace.Record, i int) string {
	if r.Source != "" {
		return fmt.Sprintf("%s:%d", r.Source, r.Line)
	}
	return fmt.Sprintf("record %d of the window", i+1)
}

// clientOptions are the body fields of a logged request, for the client.
func clientOptions(o *trace.Options) *client.Options {
	if o == nil {
		return nil
	}
	return &client.Options{
		Stream: o.Stream, Temperature: o.Temperature, TopP: o.TopP, N: o.N, Seed: o.Seed, Stop: o.Stop, StopString: o.StopString,
		PresencePenalty: o.PresencePenalty, FrequencyPenalty: o.FrequencyPenalty,
		Logprobs: o.Logprobs, TopLogprobs: o.TopLogprobs, MaxTokensField: o.MaxTokensField,
		Tools: o.Tools, ToolChoice: o.ToolChoice, ResponseFormat: o.ResponseFormat,
		ParallelToolCalls: o.ParallelToolCalls, Fields: o.Fields,
	}
}

// sentPopulation names how a request was sent, for its row: streamed or not, and constrained by
// tools, by a JSON response_format, or plain. Without logged options every request is sent
// streamed and plain.
func sentPopulation(o *trace.Options, logged bool) string {
	if !logged || o == nil {
		return results.Population(true, results.KindPlain)
	}
	kind := results.KindPlain
	switch {
	case len(o.Tools) > 0:
		kind = results.KindTools
	case o.Structured():
		kind = results.KindJSON
	}
	return results.Population(o.Streamed(), kind)
}

// probeAPI is the API the behaviour checks and the forcing probe use for a run whose default
// API is api: they speak chat or completions, so the chat family (responses, messages) is
// probed as chat, embeddings as completions (its prompts are plain text too).
func probeAPI(api string) string {
	if trace.ChatFamily(api) {
		return client.APIChat
	}
	return client.APICompletions
}

// overrideAPI sends every record to api (--api-override): a record logged against another API
// gets a copy of its options naming api, and stderr says how many were moved, from which.
func overrideAPI(w io.Writer, recs []trace.Record, api string) {
	moved := map[string]int{}
	for i := range recs {
		o := recs[i].Options
		if o == nil {
			continue
		}
		if o.API != "" && o.API != api {
			moved[o.API]++
		}
		c := *o
		c.API = api
		recs[i].Options = &c
	}
	for _, from := range trace.APIs {
		if n := moved[from]; n > 0 {
			fmt.Fprintf(w, "replay: --api-override: %d requests logged against the %s API are sent to the %s API\n", n, from, api)
		}
	}
}
