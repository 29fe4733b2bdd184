package client

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
)

// The adapter fields Config.AdapterField takes besides "" (the adapter's name as "model").
const (
	adapterLoraPath = "lora_path" // SGLang: "lora_path": "<adapter name>"
	adapterLoraIDs  = "lora"      // llama.cpp: "lora": [{"id": N, "scale": 1.0}]
)

// setAdapters checks and keeps Config.AdapterField and Config.AdapterIDs.
func (c *Client) setAdapters(field string, ids map[string]int) error {
	switch field {
	case "", adapterLoraPath, adapterLoraIDs:
	default:
		return fmt.Errorf("client: adapter field %q: want %q (SGLang), %q (llama.cpp) or none (the adapter's name as the model)", field, adapterLoraPath, adapterLoraIDs)
	}
	c.adapterField, c.adapterIDs = field, ids
	return nil
}

// addAdapter splices r's adapter into its body as Config.AdapterField says (the body's
// "model" is then r.Model, the base: modelOf), unless the logged body holds that field
// (fieldKeys: the log's own adapter wins) or ExtraBody sets it. A llama.cpp adapter with no
// id in Config.AdapterIDs is an error: the request would run on the base model.
func (c *Client) addAdapter(b []byte, r Request, fieldKeys []string) ([]byte, error) {
	f := c.adapterField
	if f == "" || r.Adapter == "" || slices.Contains(fieldKeys, f) {
		return b, nil
	}
	if _, set := c.extra.raw[f]; set {
		return b, nil
	}
	b = bytes.TrimRight(b, " \t\r\n")
	if len(b) < 2 || b[len(b)-1] != '}' {
		return b, nil
	}
	var value []byte
	if f == adapterLoraIDs {
		id, ok := c.adapterIDs[r.Adapter]
		if !ok {
			return nil, fmt.Errorf("client: adapter %q: the server listed no LoRA adapter of that name at connect time (GET /lora-adapters)", r.Adapter)
		}
		value = append(strconv.AppendInt([]byte(`[{"id":`), int64(id), 10), `,"scale":1.0}]`...)
	} else {
		var err error
		if value, err = marshal(r.Adapter); err != nil {
			return nil, fmt.Errorf("client: encoding the adapter name: %w", err)
		}
	}
	out := make([]byte, 0, len(b)+len(f)+len(value)+5)
	out = append(out, b[:len(b)-1]...)
	if !onlyOpen(out) {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, f...)
	out = append(out, '"', ':')
	out = append(out, value...)
	return append(out, '}'), nil
}

// onlyOpen reports whether b is "{" and white space: an object with no member yet.
func onlyOpen(b []byte) bool {
	return len(bytes.TrimSpace(b)) == 1
}
