// Package jsonv decodes JSON text into the generic values encoding/json produces with
// UseNumber: map[string]any, []any, string, json.Number, bool and nil. It accepts and rejects
// exactly what encoding/json does (a differential fuzz test holds it to that), and is several
// times faster on log lines, where encoding/json's byte-at-a-time scanner dominated reading raw
// request logs.
//
// It owns only that conversion. It must not grow into a schema decoder: callers walk the values
// themselves. Parsers specialised for one hot shape (the client's SSE frames, the simulator's
// request bodies, ingest's mapped columns) keep their own scanners, which skip what they do not
// need without allocating.
package jsonv
