package scrape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"
)

// FileName is the samples' file name inside a run folder.
const FileName = "server_metrics.jsonl"

// UnmarshalJSON reads the flat object MarshalJSON writes.
func (s *Sample) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*s = Sample{Values: map[string]float64{}}
	for k, raw := range m {
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("field %q: %w", k, err)
		}
		switch k {
		case "t_s":
			s.OffsetS = v
		case "unix_ms":
			if math.Abs(v) > 1e15 {
				return fmt.Errorf("field \"unix_ms\": %v out of range", v)
			}
			s.Time = time.UnixMilli(int64(v))
		default:
			s.Values[k] = v
		}
	}
	return nil
}

// ReadFile reads the samples a Scraper wrote. A last line cut short (the run was killed while
// writing it) is left out; any other bad line is an error naming it.
func ReadFile(path string) ([]Sample, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Sample
	for n := 1; len(b) > 0; n++ {
		line, rest, complete := bytes.Cut(b, []byte("\n"))
		b = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var s Sample
		if err := json.Unmarshal(line, &s); err != nil {
			if !complete {
				break
			}
			return out, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, s)
	}
	return out, nil
}
