package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"
)

// ServerSample is one line: a scrape's time since the scraping started, its wall time and the
// series found on the page.
type ServerSample struct {
	OffsetS float64
	Time    time.Time
	Values  map[string]float64
}

// MarshalJSON writes a sample as one flat object: t_s (to the microsecond), unix_ms and the
// series by name.
func (s ServerSample) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(s.Values)+2)
	for k, v := range s.Values {
		m[k] = v
	}
	m["t_s"] = float64(int64(s.OffsetS*1e6)) / 1e6
	m["unix_ms"] = s.Time.UnixMilli()
	return json.Marshal(m)
}

// UnmarshalJSON reads the flat object MarshalJSON writes, older files' keys as today's
// (serverkeys.go).
func (s *ServerSample) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*s = ServerSample{Values: map[string]float64{}}
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
			s.Values[currentKey(k)] = v
		}
	}
	return nil
}

// ServerMetricsWriter appends samples to a server-metrics file.
type ServerMetricsWriter struct {
	f    *os.File
	path string
}

// CreateServerMetrics creates (or truncates) the file at path.
func CreateServerMetrics(path string) (*ServerMetricsWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &ServerMetricsWriter{f: f, path: path}, nil
}

// Write appends one sample as one line, in one write: a run killed mid-way leaves whole lines
// behind (and at most a cut last one, which ReadServerMetrics leaves out).
func (w *ServerMetricsWriter) Write(s ServerSample) error {
	b, err := json.Marshal(s)
	if err == nil {
		_, err = w.f.Write(append(b, '\n'))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", w.path, err)
	}
	return nil
}

// Close closes the file.
func (w *ServerMetricsWriter) Close() error {
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("%s: %w", w.path, err)
	}
	return nil
}

// ReadServerMetrics reads the samples of a server-metrics file. A last line cut short (the run
// was killed while writing it) is left out; any other bad line is an error naming it.
func ReadServerMetrics(path string) ([]ServerSample, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []ServerSample
	for n := 1; len(b) > 0; n++ {
		line, rest, complete := bytes.Cut(b, []byte("\n"))
		b = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var s ServerSample
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
