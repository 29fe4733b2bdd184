package gatewaylog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Record is one log record as a Schema reads it: its raw bytes and, for JSON sources, the
// decoded object, whose members Get reaches by key, through JSON held in strings.
type Record struct {
	Raw  []byte
	root any
	// Year is the year of timestamps logged without one (a server log's month-day times).
	Year int
	// Line is the record's 1-based line in its file (its element, in an array export), for a
	// Schema's Join, whose merged records keep their parts' lines.
	Line int64
	// Parts are the other records a Join merged into this one (see join.go).
	Parts []Record
}

// FieldError is a record's field that is missing or of the wrong kind.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %v", e.Field, e.Err) }
func (e *FieldError) Unwrap() error { return e.Err }

// decodeRecord decodes a JSON record, numbers kept exact (a .NET tick count has 18 digits).
func decodeRecord(raw []byte, year int) (Record, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return Record{}, err
	}
	if _, ok := v.(map[string]any); !ok {
		return Record{}, fmt.Errorf("not a JSON object")
	}
	return Record{Raw: raw, root: v, Year: year}, nil
}

// Value is one member of a record (or nothing, when the path leads nowhere), with its path
// for error messages.
type Value struct {
	v    any
	ok   bool
	path string
}

// Get follows keys from the record's root. A key is one member name, dots and all
// ("gen_ai.usage.input_tokens" is one key where Envoy logs it so). A string met on the way
// that holds a JSON object or array is decoded and followed into (LiteLLM's metadata, Azure's
// backendResponseBody, Kong's payloads hold JSON as a string).
func (r Record) Get(keys ...string) Value {
	return Value{v: r.root, ok: r.root != nil}.Get(keys...)
}

// Get follows keys from v, as Record.Get does.
func (v Value) Get(keys ...string) Value {
	cur := v
	for _, k := range keys {
		cur.path = joinPath(cur.path, k)
		obj, ok := asContainer(cur.v).(map[string]any)
		if !ok || !cur.ok {
			return Value{path: cur.path}
		}
		cur.v, cur.ok = obj[k]
		if cur.v == nil {
			cur.ok = false
		}
	}
	return cur
}

// Index is the i-th element of an array value.
func (v Value) Index(i int) Value {
	p := fmt.Sprintf("%s[%d]", v.path, i)
	arr, ok := asContainer(v.v).([]any)
	if !ok || !v.ok || i < 0 || i >= len(arr) || arr[i] == nil {
		return Value{path: p}
	}
	return Value{v: arr[i], ok: true, path: p}
}

// Len is an array value's length, 0 for anything else.
func (v Value) Len() int {
	arr, _ := asContainer(v.v).([]any)
	return len(arr)
}

// Keys are an object value's member names (in no order), nil for anything else.
func (v Value) Keys() []string {
	obj, _ := asContainer(v.v).(map[string]any)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	return keys
}

func joinPath(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

// asContainer decodes a string holding a JSON object or array; anything else is returned as is.
func asContainer(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return v
	}
	d := json.NewDecoder(strings.NewReader(t))
	d.UseNumber()
	var out any
	if d.Decode(&out) != nil {
		return v
	}
	return out
}

// Exists reports whether the value is present and not null.
func (v Value) Exists() bool { return v.ok }

// Path is the value's path in the record, for messages.
func (v Value) Path() string { return v.path }

// Err is a FieldError for this value.
func (v Value) Err(format string, args ...any) error {
	return &FieldError{Field: v.path, Err: fmt.Errorf(format, args...)}
}

// String is a string value ("" and false when absent or not a string).
func (v Value) String() (string, bool) {
	s, ok := v.v.(string)
	return s, ok && v.ok
}

// Bool is a boolean value, also "true"/"false" held as a string.
func (v Value) Bool() (bool, bool) {
	switch b := v.v.(type) {
	case bool:
		return b, v.ok
	case string:
		p, err := strconv.ParseBool(b)
		return p, err == nil && v.ok
	}
	return false, false
}

// Number is a numeric value, also a number held as a string; an error when present but not
// a number.
func (v Value) Number() (json.Number, bool, error) {
	if !v.ok {
		return "", false, nil
	}
	switch n := v.v.(type) {
	case json.Number:
		return n, true, nil
	case string:
		t := strings.TrimSpace(n)
		if _, err := strconv.ParseFloat(t, 64); err == nil {
			return json.Number(t), true, nil
		}
	}
	return "", false, v.Err("want a number, got %s", describe(v.v))
}

// Int is a non-negative integer value (a token count); false when absent.
func (v Value) Int() (int, bool, error) {
	n, ok, err := v.Number()
	if !ok || err != nil {
		return 0, ok, err
	}
	i, perr := strconv.ParseInt(string(n), 10, 64)
	if perr != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != float64(int64(f)) {
			return 0, true, v.Err("want a whole number, got %s", n)
		}
		i = int64(f)
	}
	if i < 0 || i > 1<<40 {
		return 0, true, v.Err("%d out of range", i)
	}
	return int(i), true, nil
}

// Float is a numeric value as float64; false when absent.
func (v Value) Float() (float64, bool, error) {
	n, ok, err := v.Number()
	if !ok || err != nil {
		return 0, ok, err
	}
	f, perr := n.Float64()
	if perr != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		// "Infinity" and "NaN" held as strings parse as floats, but no sampling
		// parameter is one, and a trace cannot hold them.
		return 0, true, v.Err("want a finite number, got %s", n)
	}
	return f, true, nil
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
