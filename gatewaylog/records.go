package gatewaylog

import (
	"crypto/sha256"
	"encoding/hex"
	"io"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// records turns the sorted entries into trace records: times from the first arrival, the
// options the entries hold, the key as a pseudonym (a session id of the trace), and block
// hashes where the log says what was cached (ingest.CachedPrefixes), unless hashes is false
// (a file of a set, whose reader gives them over all its files).
func records(path string, entries []entryAt, hashes bool) ([]trace.Record, int64) {
	origin := entries[0].at
	out := make([]trace.Record, len(entries))
	var prefixes ingest.CachedPrefixes
	for i, e := range entries {
		rec := trace.Record{
			Timestamp: e.at.Sub(origin), PromptTokens: e.PromptTokens, OutputTokens: e.OutputTokens,
			Model: e.Model, SessionID: pseudonym(e.Key), Source: path, Line: e.line, Media: e.Media,
			Headers: e.Headers,
		}
		o := &trace.Options{API: e.API, Stream: e.Stream, Temperature: e.Temperature, TopP: e.TopP, Status: e.Status,
			N: e.N, Seed: e.Seed, Stop: e.Stop, FinishReason: e.FinishReason}
		if e.MaxTokens != nil {
			o.MaxTokensField, o.MaxTokens = "max_tokens", *e.MaxTokens
		}
		if e.CachedTokens >= 0 {
			c := min(e.CachedTokens, e.PromptTokens)
			o.CachedTokens = &c
		}
		if e.ReasoningTokens >= 0 { // the readers hold it to the output; min keeps it so
			r := min(e.ReasoningTokens, e.OutputTokens)
			o.ReasoningTokens = &r
		}
		rec.Options = o
		if o.CachedTokens == nil {
			// Nothing says what it shared: no session, so synth does not grow it from the
			// previous request's prompt either; it replays with a prefix of its own.
			rec.SessionID = ""
		}
		if hashes {
			prefixes.Apply(&rec)
		}
		out[i] = rec
	}
	return out, prefixes.Unplaced
}

// pseudonym is a stable stand-in for a logged key (a user or API key must not reach a trace).
func pseudonym(key string) string {
	if key == "" {
		return ""
	}
	h := sha256.Sum256([]byte("replay gateway key\x00" + key))
	return "k" + hex.EncodeToString(h[:8])
}

func (r *reader) Next() (trace.Record, error) {
	if r.next >= len(r.recs) {
		return trace.Record{}, io.EOF
	}
	r.next++
	return r.recs[r.next-1], nil
}

func (r *reader) Counts() ingest.Counts { return r.counts }

// Rewind gives the records again from the first (ingest.Rewindable: a set of files keeps the
// reader of its first pass rather than read the file twice).
func (r *reader) Rewind() { r.next = 0 }

// Held is how many records the reader holds.
func (r *reader) Held() int { return len(r.recs) }

// Origin is the first arrival (ns since the Unix epoch): what the records' times count from.
func (r *reader) Origin() int64 { return r.origin }

func (r *reader) Close() error { r.recs = nil; return nil }
