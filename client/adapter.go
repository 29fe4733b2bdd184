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

// setAdapters checks and keeps Config.AdapterField, AdapterIDs and AdapterListed.
func (c *Client) setAdapters(field string, ids map[string]int, listed []int) error {
	switch field {
	case "", adapterLoraPath, adapterLoraIDs:
	default:
		return fmt.Errorf("client: adapter field %q: want %q (SGLang), %q (llama.cpp) or none (the adapter's name as the model)", field, adapterLoraPath, adapterLoraIDs)
	}
	for name, id := range ids {
		if !slices.Contains(listed, id) {
			return fmt.Errorf("client: adapter %q: id %d is not among the listed ids %v", name, id, listed)
		}
	}
	c.adapterField, c.adapterIDs, c.adapterListed = field, ids, listed
	return nil
}

// addAdapter splices r's adapter into its body as Config.AdapterField says (the body's
// "model" is then r.Model, the base: modelOf), unless the logged body holds that field
// (fieldKeys: the log's own adapter wins) or ExtraBody sets it. On llama.cpp a request
// without an adapter gets every listed adapter at scale 0 (the base alone), and an adapter
// with no id in Config.AdapterIDs is an error: the request would run without it.
func (c *Client) addAdapter(b []byte, r Request, fieldKeys []string) ([]byte, error) {
	f := c.adapterField
	if f == "" || (r.Adapter == "" && (f != adapterLoraIDs || len(c.adapterListed) == 0)) || slices.Contains(fieldKeys, f) {
		return b, nil
	}
	if _, set := c.extra.raw[f]; set {
		return b, nil
	}
	b = bytes.TrimRight(b, " \t\r\n")
	if len(b) < 2 || b[len(b)-1] != '}' {
		return b, nil
	}
	value, err := c.adapterValue(r.Adapter)
	if err != nil {
		return nil, err
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

// adapterValue is the JSON value of the adapter field for adapter ("" for none): SGLang's
// name, or llama.cpp's list of every listed id, adapter's at scale 1.0 and first, the others
// at 0.0.
func (c *Client) adapterValue(adapter string) ([]byte, error) {
	if c.adapterField != adapterLoraIDs {
		v, err := marshal(adapter)
		if err != nil {
			return nil, fmt.Errorf("client: encoding the adapter name: %w", err)
		}
		return v, nil
	}
	own := -1
	if adapter != "" {
		id, ok := c.adapterIDs[adapter]
		if !ok {
			return nil, fmt.Errorf("client: adapter %q: the server listed no LoRA adapter of that name at connect time (GET /lora-adapters)", adapter)
		}
		own = id
	}
	v := []byte{'['}
	entry := func(id int, scale string) {
		if len(v) > 1 {
			v = append(v, ',')
		}
		v = strconv.AppendInt(append(v, `{"id":`...), int64(id), 10)
		v = append(append(append(v, `,"scale":`...), scale...), '}')
	}
	if own >= 0 {
		entry(own, "1.0")
	}
	for _, id := range c.adapterListed {
		if id != own {
			entry(id, "0.0")
		}
	}
	return append(v, ']'), nil
}

// onlyOpen reports whether b is "{" and white space: an object with no member yet.
func onlyOpen(b []byte) bool {
	return len(bytes.TrimSpace(b)) == 1
}
