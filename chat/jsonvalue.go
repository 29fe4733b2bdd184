package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// decodeJSON parses JSON text into the values a template sees, as Python's json.loads gives
// them to transformers: objects keep their keys in order (an *exec.Dict, which gonja iterates,
// indexes and tests as a mapping in that order; a Go map would sort them, and `tool | tojson`
// would print another prompt than the server's), integers are int64, other numbers float64.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// decodeValue reads the value whose first token is next in dec.
func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return decodeArray(dec)
		}
		return decodeObject(dec)
	case json.Number:
		return pyNumber(t)
	default: // string, bool, nil
		return t, nil
	}
}

func decodeArray(dec *json.Decoder) (any, error) {
	list := []any{}
	for dec.More() {
		v, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	_, err := dec.Token() // ']'
	return list, err
}

// decodeObject reads members in order; a repeated key keeps its first place and takes the
// last value, as a Python dict built by json.loads does.
func decodeObject(dec *json.Decoder) (any, error) {
	d := &exec.Dict{Pairs: []*exec.Pair{}}
	at := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		v, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		if i, ok := at[key]; ok {
			d.Pairs[i].Value = exec.AsValue(v)
			continue
		}
		at[key] = len(d.Pairs)
		d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(key), Value: exec.AsValue(v)})
	}
	_, err := dec.Token() // '}'
	return d, err
}

// pyNumber is a JSON number as Python reads it: an int when it is written as one (within
// int64 here; Python's are unbounded), else a float.
func pyNumber(n json.Number) (any, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("number %s: %w", s, err)
	}
	return f, nil
}
