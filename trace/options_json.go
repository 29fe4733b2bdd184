package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// EncodeOptions is the JSON text the normalized trace's `options` column and the Mooncake
// export hold for o: encoding/json's field names (see Options), without HTML escaping, so that
// the tools' and schemas' text reads as logged and DecodeOptions gives back the same bytes in
// every JSON field (json.RawMessage values are kept compact). nil gives nil: no options.
func EncodeOptions(o *Options) ([]byte, error) {
	if o == nil {
		return nil, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		return nil, fmt.Errorf("trace: encoding options: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// DecodeOptions reads EncodeOptions' text; empty text is nil (no options). Unknown fields are
// an error: a trace written by a later version, whose options a replay would half-apply.
func DecodeOptions(data []byte) (*Options, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	o := new(Options)
	if err := dec.Decode(o); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("options: more than one JSON value")
	}
	return o, nil
}
