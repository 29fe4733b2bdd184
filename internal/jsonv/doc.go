// Package jsonv decodes JSON text into the generic values encoding/json produces with
// UseNumber: map[string]any, []any, string, json.Number, bool and nil. It accepts and rejects
// exactly what encoding/json does (a differential fuzz test holds it to that), and is several
// times faster on log lines, where encoding/json's byte-at-a-time scanner dominated reading raw
// request logs.
//
// It owns only that conversion: a walker over internal/jsoncur's cursor, which holds the
// grammar, the string decoding and the error offsets. It must not grow into a schema decoder:
// callers walk the values themselves. Parsers specialised for one hot shape (the client's SSE
// frames, the simulator's request bodies, ingest's mapped columns) are walkers on the same
// cursor that skip what they do not need without allocating.
package jsonv
