// Package jsoncur is the one JSON reader under the project's hand-written scanners: a cursor over
// a JSON text in memory whose primitives (whitespace, keys, strings as raw bytes, unquoting,
// numbers, literals, skipping a value, the members of an object and the elements of an array)
// accept and reject exactly what encoding/json does, with encoding/json's error messages and the
// byte offset of the fault. It reads in place and allocates only to unquote an escaped string.
// Members and elements are read with plain for loops (Object/NextMember, Array/NextElem), not
// callbacks, so the hot walkers pay no closure or indirect call per member.
//
// It owns the grammar and nothing else. It must not know a schema: which fields matter and what
// they mean stay with the walkers built on it (client SSE frames, sim request bodies, ingest
// rows, jsonv's generic values, tokenizer.json vocabularies), and it must not build values.
package jsoncur
